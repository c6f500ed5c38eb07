//! The page's components, one small file each.

pub mod error_banner;
pub mod intro;
pub mod masthead;
