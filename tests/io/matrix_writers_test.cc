// Placeholder while the convert/generate commands are being written.
