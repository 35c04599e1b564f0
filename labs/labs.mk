# The labs (labs/README.md): in each folder labs/N-SLUG/ a policy to
# finish, NAME.bpf.c with its TODO, the guarantee it must give
# (README.md), and a checker (check.sh) that tries every route it knows
# in a booted appliance and says which one got through.
#
#   make lab N                 build the appliance with lab N's policy in
#                              its krsi tool, boot it, run the checker
#   make lab N LAB_POLICY=F    the same with the policy in file F (of the
#                              lab's NAME.bpf.c name: a solution, say)
#
# A lab's image is the test image (tests/tests.mk) with a krsi tool that
# carries the policies of progs/ and the lab's, its checker as the test
# list, and the lab's helpers.  make test builds two images of every
# lab: with the solutions (labs/solutions/), whose checkers must pass, and
# with the policies as given, whose checkers must find a route that gets
# through (tests/sessions/labs.sh).
LABS := $(sort $(patsubst labs/%/check.sh,%,$(wildcard labs/[0-9]*-*/check.sh)))
LAB_DIR := $(BUILD)/labs
LAB_IMAGES := $(LAB_DIR)/solutions.cpio.gz $(LAB_DIR)/given.cpio.gz

# lab_policy LAB: the lab's policy file (its one NAME.bpf.c).
lab_policy = $(wildcard labs/$(1)/*.bpf.c)
lab_name = $(patsubst %.bpf.c,%,$(notdir $(call lab_policy,$(1))))

# A lab policy's object, light skeleton and summary: as progs.mk makes a
# policy's, from the file in $(LAB_DIR)/IMAGE/src/ (copied there, so that
# a learner's file and a solution of the same name build apart).
$(LAB_DIR)/%.bpf.o: $(LAB_DIR)/%.bpf.c $(wildcard progs/*.h) $(GEN)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)clang $(BPF_CFLAGS) -c $< -o $@

$(LAB_DIR)/%.lskel.h: $(LAB_DIR)/%.bpf.o $(SKEL_BPFTOOL_DEP)
	$(call msg,GEN-SKEL,$@)
	$(Q)$(SKEL_BPFTOOL) gen skeleton -L $< name $(notdir $*) >$@

$(LAB_DIR)/%.policy.h: $(LAB_DIR)/%.bpf.c $(LAB_DIR)/%.bpf.o $(LAB_DIR)/%.lskel.h \
		tools/build/gen-policy.sh
	$(call msg,GEN,$@)
	$(Q)tools/build/gen-policy.sh $(notdir $*) $< $(LAB_DIR)/$*.bpf.o >$@

# lab_image IMAGE, POLICY FILES, CHECKERS: $(LAB_DIR)/IMAGE.cpio.gz, the
# test image with a krsi tool that carries progs/ and POLICY FILES, and
# CHECKERS (labs/N-SLUG) as its test list, each /tests/lab-N-SLUG.
define lab_image
$(LAB_DIR)/$(1)/%.bpf.c: FORCE
	$(Q)mkdir -p $$(dir $$@)
	$(Q)src=$$$$(for f in $(2); do case $$$${f##*/} in $$*.bpf.c) echo $$$$f;; esac; done); \
		cmp -s $$$$src $$@ 2>/dev/null || cp $$$$src $$@

$(LAB_DIR)/$(1)/policies.h: $(GEN)/policies.h \
		$(foreach f,$(2),$(LAB_DIR)/$(1)/$(notdir $(f:.bpf.c=.policy.h)))
	$$(call msg,GEN,$$@)
	$(Q){ sed '/^#define KRSI_POLICIES/d' $(GEN)/policies.h; \
	  for f in $(notdir $(2:.bpf.c=)); do echo "#include \"$$$$f.policy.h\""; done; \
	  printf '#define KRSI_POLICIES(X)'; \
	  for p in $(POLICIES) $(notdir $(2:.bpf.c=)); do printf ' X(%s)' $$$$p; done; echo; \
	} >$$@

$(LAB_DIR)/$(1)/krsi: $(LAB_DIR)/$(1)/policies.h $(BIN)/krsi
	$$(call msg,CC,$$@)
	$(Q)$(MUSLCC) -I$(LAB_DIR)/$(1) $(CFLAGS) -Itools/krsi \
		$(KRSI_SRCS) $(LIB_SRCS) $(LDFLAGS) -o $$@

$(LAB_DIR)/$(1).cpio.gz: $(LAB_DIR)/$(1)/krsi $(TEST_DIR)/initramfs.cpio.gz \
		$(foreach c,$(3),labs/$(c)/check.sh) labs/lib/lab.sh $(LAB_HELPERS) \
		tests/lib/append-image.sh
	$$(call msg,CPIO,$$@)
	$(Q)for c in $(3); do echo lab-$$$$c; done >$(LAB_DIR)/$(1)/LIST.lab
	$(Q){ echo "/usr/bin/krsi $(LAB_DIR)/$(1)/krsi 0755"; \
	  echo "/tests/LIST.lab $(LAB_DIR)/$(1)/LIST.lab 0644"; \
	  echo "/tests/lab.sh labs/lib/lab.sh 0644"; \
	  for c in $(3); do echo "/tests/lab-$$$$c labs/$$$$c/check.sh 0755"; done; \
	  for h in $(LAB_HELPERS); do echo "/tests/$$$${h##*/} $$$$h 0755"; done; } | \
		$(APPEND_IMAGE) $$@ $(TEST_DIR)/initramfs.cpio.gz
endef

# The helpers the checkers run (labs/helpers/NAME.c), static musl.
LAB_HELPERS := $(patsubst labs/helpers/%.c,$(LAB_DIR)/helpers/%,$(wildcard labs/helpers/*.c))

$(LAB_DIR)/helpers/%: labs/helpers/%.c tools/lib/errname.c $(BUILD)/kernel.stamp
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(MUSLCC) $(CFLAGS) $< tools/lib/errname.c $(LDFLAGS) -o $@

# make lab N [LAB_POLICY=FILE]
ifeq ($(firstword $(MAKECMDGOALS)),lab)
LAB_N := $(word 2,$(MAKECMDGOALS))
LAB := $(filter $(LAB_N)-%,$(LABS))
ifeq ($(LAB_N)$(if $(LAB),,x),$(LAB_N))
$(LAB_N): ; @:
else
$(error make lab N: N is the number of a lab in labs/: $(LABS))
endif
LAB_POLICY ?= $(call lab_policy,$(LAB))
$(eval $(call lab_image,lab-$(LAB_N),$(LAB_POLICY),$(LAB)))

# On the kernel without boot policies (kernel/kernel.mk): the checker
# tries each route first without the lab's policy.
lab: deps all $(LAB_DIR)/lab-$(LAB_N).cpio.gz
	$(Q)labs/run-lab.sh $(ARCH) $(LAB_DIR)/lab-$(LAB_N).cpio.gz $(LAB_DIR)/lab-$(LAB_N) \
		$(BARE_IMAGE)
endif

# Every lab, with its solution and with its policy as given.
$(eval $(call lab_image,solutions,$(foreach l,$(LABS),$(wildcard labs/solutions/$(l)/*.bpf.c)),$(LABS)))
$(eval $(call lab_image,given,$(foreach l,$(LABS),$(call lab_policy,$(l))),$(LABS)))
