"""The shape of a refusal: exit 2 and one line on stderr naming what was wrong."""


def assert_refused(res, words) -> None:
    """``res`` (a CliRunner result) is a one-line refusal whose message holds every one of ``words``."""
    assert res.exit_code == 2, res.output
    message = res.stderr.strip()
    assert "\n" not in message and "Traceback" not in message, message
    for word in words:
        assert word in message, message
