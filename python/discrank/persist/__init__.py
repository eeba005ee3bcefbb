"""Model files: a fitted model saved as a ``.npz`` archive of the fields its class declares, and loaded back."""

from discrank.persist.model_file import load, save

__all__ = ["load", "save"]
