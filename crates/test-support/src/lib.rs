//! Test machinery of mobilectl that the product does not carry: [`upstream`], HTTP and HTTPS
//! servers (with their own CA) for the recording proxy's tests and benches; [`media`], videos
//! read back with Debian's `ffprobe` and `ffmpeg` (the library's unit tests and the
//! recording tests). The virtual Android device's harness lives with the device
//! (`virtual_device::testing`).

pub mod media;
pub mod upstream;
