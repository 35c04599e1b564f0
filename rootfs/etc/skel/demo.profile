# The KRSI demo user: unprivileged, under every boot policy.
PS1='demo$ '
