//! Grading one test: ask the runner, compare its reply frames with the reference's as
//! bytes, and explain any difference the way a student can act on, through the test's
//! decoded request; nothing here knows which assignment it grades.

mod bulk;
mod driven;
mod failure;
mod listed;
mod patience;

pub use bulk::{grade_bulk, runners_for};
pub use driven::grade_driven;
pub use listed::{Expected, grade_listed, reference_answers};
