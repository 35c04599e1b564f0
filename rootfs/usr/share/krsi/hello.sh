#!/bin/sh
# A script of the image, for audit_exec: its record names the script and
# the interpreter that ran it.
echo "hello from a script"
