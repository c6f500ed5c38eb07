//! The seed comparison document (filled in below).
