//! The sandbox of this machine: its layers, probed once per grader, and the commands that
//! run a program inside them.

use std::io;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::cgroup::Cgroup;
use super::contain;
use super::jail::{CONTAIN_COMMAND, JAIL_ENV, Jail};
use super::layers::Layers;

/// The layers of this machine, found once per `grader` process.
#[derive(Debug, Clone)]
pub struct Sandbox {
    layers: Layers,
    /// The grader's own executable, which runs every stage.
    pub(super) grader: PathBuf,
}

impl Sandbox {
    /// Tries each layer in a throwaway process of the grader's own binary.
    pub fn probe() -> io::Result<Sandbox> {
        let grader = std::env::current_exe()?;
        let output = Command::new(&grader)
            .arg(CONTAIN_COMMAND)
            .arg(contain::PROBE)
            .env_clear()
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()?;
        let mut layers: Layers = serde_json::from_slice(&output.stdout).map_err(|error| {
            io::Error::other(format!("the sandbox probe said no layers: {error}"))
        })?;
        layers.cgroup = Cgroup::detect();
        Ok(Sandbox { layers, grader })
    }

    pub fn layers(&self) -> &Layers {
        &self.layers
    }

    /// A command that runs `jail`'s program contained, and the cgroup holding its tree.
    /// The caller sets its stdio and spawns it.
    pub fn command(&self, jail: Jail) -> io::Result<(Command, Option<Cgroup>)> {
        let (jail, cgroup) = self.prepare(jail)?;
        let config = serde_json::to_string(&jail).map_err(io::Error::other)?;
        let mut command = Command::new(&self.grader);
        command
            .arg(CONTAIN_COMMAND)
            .arg(contain::OUTSIDE)
            .env_clear()
            .env(JAIL_ENV, config);
        Ok((command, cgroup))
    }

    /// `jail` with this machine's layers, and the cgroup its tree is to join.
    pub(super) fn prepare(&self, mut jail: Jail) -> io::Result<(Jail, Option<Cgroup>)> {
        let cgroup = match self.layers.cgroup {
            Some(kind) => Some(Cgroup::create(
                kind,
                jail.limits.tree_memory,
                jail.limits.tree_tasks,
            )?),
            None => None,
        };
        jail.layers = self.layers.clone();
        jail.cgroup_join = cgroup.as_ref().map(Cgroup::join_files).unwrap_or_default();
        Ok((jail, cgroup))
    }
}
