# SPDX-License-Identifier: LGPL-2.1-or-later
"""Settings strings are libmdk's: parsed by it, refused with its message."""
import errno

import pytest

import mdk
from conftest import mdkctl


def test_policy_grid():
    p = mdk.Policy("pace:P=1-3,A=2/4")
    assert p.name == "pace" and p.kind == "interval" and p.online
    p.resolve(10)
    assert p.settings == 6
    assert p.setting(0) == "pace:P=1,A=2"
    assert mdk.Policy(p.spec).resolve(10).settings == 6
    assert mdk.Policy("opp").kind == "budget"
    assert mdk.Policy("lru").kind == "cache"
    assert set(mdk.policies()) >= {"age", "vmin", "paw", "pace", "opp",
                                   "lopp", "lru", "opt"}


def test_parse_list():
    names = [p.name for p in mdk.policy.parse("age,paw:wait=3,P=2,opp")]
    assert names == ["age", "paw", "opp"]


@pytest.mark.parametrize("spec,code", [("age:T=x", errno.EINVAL),
                                       ("nosuch", errno.ENOENT),
                                       ("opp:rho=2", errno.EINVAL),
                                       ("paw:Q=3", errno.EINVAL)])
def test_bad_settings_string(mix, spec, code):
    with pytest.raises(mdk.MdkError) as e:
        mdk.mpc(mix, spec)
    assert e.value.errno == code
    p = mdkctl("mpc", "--policy", spec, mix, check=False)
    assert p.returncode == 2
    assert p.stderr == "mdkctl: --policy: %s\n" % e.value
    with pytest.raises(mdk.MdkError):
        mdk.Policy(spec)
