//! cardgrade: grades card-game assignments. The grader computes every expected answer with
//! the reference in its own process; student code runs only in a generated runner process.

// The sandbox closes inherited files with one system call that has no safe wrapper.
#![deny(unsafe_code)]

pub mod answers;
pub mod audit;
pub mod batch;
pub mod cache;
pub mod capture;
pub mod check;
pub mod compile;
pub mod deadline;
pub mod descriptors;
pub mod diagnosis;
pub mod doctor;
pub mod exit;
pub mod fill;
pub mod glibc;
pub mod grade;
pub mod leftovers;
pub mod lint;
pub mod mutant;
pub mod new;
pub mod package;
pub mod play;
pub mod policy;
pub mod reporter;
pub mod results;
pub mod runner;
pub mod sandbox;
pub mod schema;
pub mod show;
pub mod spec;
pub mod split;
pub mod student_tests;
pub mod student_text;
pub mod temp;
pub mod verdict;
pub mod watch;
pub mod workflow;
pub mod zip;
