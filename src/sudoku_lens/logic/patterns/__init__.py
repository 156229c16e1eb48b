"""One module per family of techniques; each exports `TECHNIQUES` (see `logic.catalog`)."""
