# The C-library template. Each library of the tree (libwsewire, libwsehost,
# libwsetrain) is built by it in three variants from the same sources:
#   obj/   plain (-O2), for the tools, the public libraries and the benches
#   san/   ASan + UBSan, for the unit tests
#   tsan/  ThreadSanitizer, for the tests of the threaded parts
# Each variant is an internal archive DIR/VARIANT/libNAME.a of the
# library's own objects with every symbol, for white-box tests.
#
#   $(call clib,NAME,DIR,SOURCES)
# reads NAME_CFLAGS and NAME_DEPS (the headers every object depends on)
# and, per source file, CFLAGS_<file name without .c>; defines NAME_OBJS_v
# and NAME_A_v for v in obj san tsan. Object names are the sources' file
# names, so a library's sources must have distinct ones.
#
#   $(call clib_public,NAME,DIR,LINKED,MAP,VERSION,LIBS)
# the installed forms from the plain objects and LINKED (archives of the
# wire library, whose objects join):
#   DIR/libNAME.a            one relocatable object in which every
#                            symbol not marked WSE_API is made local, so
#                            that `nm -g` of the archive shows the API only
#   DIR/libNAME.so.VERSION   SONAME libNAME.so.MAJOR, exports from MAP
# and NAME_PUB_A, NAME_SO, NAME_SONAME.

CLIB_VARIANTS   := obj san tsan
CLIB_FLAGS_obj  :=
CLIB_FLAGS_san  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CLIB_FLAGS_tsan := -fsanitize=thread -fno-omit-frame-pointer
CLIB_WARN       := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes

# $(1) name, $(2) dir, $(3) variant, $(4) source
define clib_object
$(2)/$(3)/$(notdir $(basename $(4))).o: $(4) $$($(1)_DEPS) | deps
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_CFLAGS) $$(CFLAGS_$(notdir $(basename $(4)))) $$(CLIB_FLAGS_$(3)) -c -o $$@ $$<
endef

# $(1) name, $(2) dir, $(3) variant, $(4) sources
define clib_variant
$(1)_OBJS_$(3) := $(foreach s,$(4),$(2)/$(3)/$(notdir $(basename $(s))).o)
$(1)_A_$(3) := $(2)/$(3)/lib$(1).a
$$($(1)_A_$(3)): $$($(1)_OBJS_$(3))
	@rm -f $$@
	ar rcs $$@ $$^
$(foreach s,$(4),$(eval $(call clib_object,$(1),$(2),$(3),$(s))))
endef

clib = $(foreach v,$(CLIB_VARIANTS),$(eval $(call clib_variant,$(1),$(2),$(v),$(3))))

# $(1) name, $(2) dir, $(3) linked archives, $(4) map, $(5) version, $(6) libs
define clib_public_rules
$(1)_PUB_A  := $(2)/lib$(1).a
$(1)_SONAME := lib$(1).so.$(firstword $(subst ., ,$(5)))
$(1)_SO     := $(2)/lib$(1).so.$(5)
$$($(1)_PUB_A): $$($(1)_OBJS_obj) $(3)
	ld -r -o $$@.o $$($(1)_OBJS_obj) $(3)
	objcopy --localize-hidden $$@.o
	@rm -f $$@
	ar rcs $$@ $$@.o
	@rm -f $$@.o
$$($(1)_SO): $$($(1)_OBJS_obj) $(3) $(4)
	$$(CC) -shared -Wl,-soname,$$($(1)_SONAME) -Wl,--version-script=$(4) \
		-Wl,--no-undefined -o $$@ $$($(1)_OBJS_obj) $(3) $(6)
	ln -sf $$(notdir $$@) $(2)/$$($(1)_SONAME)
	ln -sf $$($(1)_SONAME) $(2)/lib$(1).so
endef
clib_public = $(eval $(call clib_public_rules,$(1),$(2),$(3),$(4),$(5),$(6)))
