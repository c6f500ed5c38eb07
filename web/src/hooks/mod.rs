//! The page's custom hooks.

pub mod use_runner;
