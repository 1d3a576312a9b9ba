//! Screenshot decoding, scaling, encoding and annotation.
