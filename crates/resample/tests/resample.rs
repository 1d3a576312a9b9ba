//! The resampler through its public call, as the main crate makes it. Here rather than as
//! unit tests: a unit-test build would compile the generic kernels a second time
//! (`Cargo.toml`'s `[lib] test = false`).

use resample::{Crop, Pixels, Resampler};

/// Two columns, black and white, halved to one: the filter averages them.
#[test]
fn halving_averages_neighbouring_pixels() {
    let src = [0u8, 0, 0, 255, 255, 255, 0, 0, 0, 255, 255, 255];
    let mut out = [0u8; 3];
    Resampler::new()
        .resample(Pixels::Rgb8, (&src, (2, 2)), (&mut out, (1, 1)), None)
        .unwrap();
    assert!(out.iter().all(|&v| (120..=135).contains(&v)), "{out:?}");
}

/// The bottom quarter of a black-over-white image, cropped then resized, is white: the
/// filter reads around the crop too (the streamed resize relies on it), and there it finds
/// white rows only.
#[test]
fn a_crop_resizes_only_its_part() {
    let mut src = vec![0u8; 4 * 8 * 4];
    src[4 * 4 * 4..].fill(255);
    let mut out = [0u8; 2 * 4];
    let crop = Crop {
        left: 0.0,
        top: 6.0,
        width: 4.0,
        height: 2.0,
    };
    Resampler::new()
        .resample(
            Pixels::Rgba8,
            (&src, (4, 8)),
            (&mut out, (2, 1)),
            Some(crop),
        )
        .unwrap();
    assert_eq!(out, [255u8; 8]);
    // Without the crop, the same resize averages black and white.
    let mut whole = [0u8; 2 * 4];
    Resampler::new()
        .resample(Pixels::Rgba8, (&src, (4, 8)), (&mut whole, (2, 1)), None)
        .unwrap();
    assert!(whole[0] < 200, "{whole:?}");
}

#[test]
fn a_buffer_of_the_wrong_size_is_an_error_not_a_panic() {
    let mut out = [0u8; 3];
    let err = Resampler::new()
        .resample(Pixels::Rgb8, (&[0u8; 5], (2, 2)), (&mut out, (1, 1)), None)
        .unwrap_err();
    assert!(err.to_string().starts_with("resize: "), "{err}");
}
