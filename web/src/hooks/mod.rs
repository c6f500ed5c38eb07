//! The page's custom hooks.

pub mod queue;
pub mod use_deferred;
pub mod use_runner;
