"""Release profiles: loading, queries, the choice of a release."""

from __future__ import annotations

import pytest

from schemac.profiles import (
    GENERIC,
    ReleaseProfile,
    UnknownProfileKeyError,
    UnknownReleaseError,
    choose_release,
    load_profile,
    newest_release,
    supported_releases,
)
from schemac.profiles.vocabulary import FEATURES, LISTS


def test_every_supported_release_loads_and_names_itself() -> None:
    assert supported_releases() == ("2.11", "2.12", "2.13", "2.14", "2.15")
    for release in supported_releases():
        profile = load_profile(release)
        assert profile.release == release
        assert profile.torch_version.startswith(release + ".")
        assert "Tensor" in profile.names("base_types")
        assert "CPU" in profile.names("dispatch_keys")


def test_features_follow_the_releases() -> None:
    assert not load_profile("2.13").has("node_creation_hooks")
    assert load_profile("2.14").has("node_creation_hooks")
    assert load_profile("2.13").has("tensor_is_variable")
    assert not load_profile("2.15").has("tensor_is_variable")
    assert load_profile("2.15").has("per_key_export_macros")
    assert "Dimname" in load_profile("2.12").names("base_types")
    assert "Dimname" not in load_profile("2.13").names("base_types")
    assert load_profile("2.15").ordered("random_name_exemptions") == ("_philox_",)
    assert load_profile("2.14").ordered("random_name_exemptions") == ()


def test_a_misspelt_query_is_an_error_not_a_silent_no() -> None:
    profile = load_profile("2.13")
    with pytest.raises(UnknownProfileKeyError):
        profile.has("node_creation_hook")
    with pytest.raises(UnknownProfileKeyError):
        profile.names("gradient_implemented_for_complexes")
    with pytest.raises(UnknownProfileKeyError):
        ReleaseProfile("9.9", "9.9.0", features={"no_such_feature"}, lists={})


def test_a_profile_round_trips_through_its_json_data() -> None:
    profile = load_profile("2.14")
    assert ReleaseProfile.from_json_data(profile.to_json_data()) == profile


def test_every_declared_name_is_described() -> None:
    assert all(text.strip() for text in {**FEATURES, **LISTS}.values())


@pytest.mark.parametrize(
    ("requested", "chosen", "warns"),
    [
        ("2.13", "2.13", False),
        ("2.14.1", "2.14", False),
        ("2.13.0+cpu", "2.13", False),
        ("2.16.0", "2.15", True),
        ("3.0", "2.15", True),
        ("1.13", "2.11", True),
        ("2.10", "2.11", True),
    ],
)
def test_choose_release_takes_the_nearest_with_a_warning(
    requested: str, chosen: str, warns: bool
) -> None:
    choice = choose_release(requested)
    assert choice.profile.release == chosen
    assert (choice.warning is not None) == warns
    if warns:
        assert requested in str(choice.warning) and chosen in str(choice.warning)


def test_choose_release_rejects_text_that_is_no_version() -> None:
    with pytest.raises(UnknownReleaseError):
        choose_release("latest")


def test_the_generic_profile_keeps_the_vocabulary_and_drops_pytorch_lists() -> None:
    generic = choose_release(GENERIC).profile
    newest = load_profile(newest_release())
    assert generic.release == GENERIC
    assert generic.names("base_types") == newest.names("base_types")
    assert generic.names("autograd_helpers") == newest.names("autograd_helpers")
    assert generic.names("gradient_implemented_for_complex") == frozenset()
