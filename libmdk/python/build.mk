# SPDX-License-Identifier: LGPL-2.1-or-later
# The Python package mdk (libmdk/python/mdk/), built into $(B)/python/mdk/:
# copies of its .py files and the cffi extension _mdk, whose C source
# libmdk/python/mdk_build.py emits and which is compiled here against
# libmdk/include and linked to $(B)/lib/libmdk.so without an rpath (the
# tests set LD_LIBRARY_PATH; installed, it loads the system's libmdk.so.0).
# Debian's /usr/bin/python3, python3-cffi and python3-numpy; pandas is
# optional at run time.

PYTHON ?= /usr/bin/python3
PY_EXT_SUFFIX := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PY_INCLUDES := $(shell $(PYTHON) -c 'import sysconfig; print("-I" + sysconfig.get_paths()["include"])' 2>/dev/null)
PY_SRCS := $(wildcard libmdk/python/mdk/*.py)
PY_OUT := $(B)/python/mdk
PY_EXT := $(PY_OUT)/_mdk$(PY_EXT_SUFFIX)
PY_FILES := $(PY_SRCS:libmdk/python/mdk/%=$(PY_OUT)/%)
# Installed where Debian's python3 looks: under /usr, dist-packages of
# python3 (Debian's own packages' place); elsewhere (/usr/local),
# dist-packages of this python3.X, the one of the two on sys.path there.
PY_VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PY_VERSION)/dist-packages)

.PHONY: python
python: $(PY_EXT) $(PY_FILES)

$(B)/python/_mdk.c: libmdk/python/mdk_build.py
	$(call msg,CFFI,$@)
	@mkdir -p $(@D)
	$(Q)$(PYTHON) $< $@

# cffi's generated code is not held to the tree's warnings.
$(PY_EXT): $(B)/python/_mdk.c $(LIBMDK_SO) $(wildcard libmdk/include/mdk/*.h)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -fPIC -shared $(PY_INCLUDES) \
		-Ilibmdk/include -o $@ $< -L$(B)/lib -lmdk

$(PY_OUT)/%.py: libmdk/python/mdk/%.py
	@mkdir -p $(@D)
	$(Q)cp $< $@

.PHONY: install-python
install-python: python
	install -d $(DESTDIR)$(PYTHONDIR)/mdk
	install -m 0644 $(PY_FILES) $(DESTDIR)$(PYTHONDIR)/mdk/
	install -m 0644 $(PY_EXT) $(DESTDIR)$(PYTHONDIR)/mdk/

install: install-python
# make check and make unit run its tests (tests/check), which compare with mdkctl.
check unit: python $(MDKCTL)
