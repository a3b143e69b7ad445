"""Helpers for comparing run summaries."""


def timeless(summary: dict) -> dict:
    """``summary`` without its wall-clock figures (seconds, speeds, memory): what a seed fixes."""
    return {k: v for k, v in summary.items()
            if not (k.endswith("_seconds") or k.endswith("_per_second") or k == "peak_rss_mib")}
