//! A virtual Android device that the real `adb` client and server drive over the adb
//! device transport. It stands in for a phone in tests and in `serve --demo`, and shares no
//! code with the product's own device code.
