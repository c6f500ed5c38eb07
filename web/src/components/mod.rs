//! The page's components, one small file each.

pub mod chart_area;
pub mod compare_panel;
pub mod compare_toggle;
pub mod contest_table;
pub mod embed_view;
pub mod error_banner;
pub mod export_bar;
pub mod field;
pub mod inspector;
pub mod masthead;
pub mod playback;
pub mod policy_panel;
pub mod presenter;
pub mod quiz;
pub mod report_panel;
pub mod run_status;
pub mod scenario_panel;
pub mod share_box;
pub mod stats_table;
pub mod sweep_panel;
pub mod task_table;
pub mod tunable_slider;
