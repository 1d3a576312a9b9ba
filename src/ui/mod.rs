//! The canonical, platform-free UI tree: parsers, pruning, refs, text, fingerprints, selectors.
//! Pure code: no I/O, no async, no knowledge of HTTP or devices.
