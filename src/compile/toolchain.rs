//! The toolchain a build runs: where cargo's and rustup's homes are on this machine, where
//! the build sees them (mounted, or where they are), and which cargo it runs.

use std::path::{Path, PathBuf};

use super::error::BuildError;
use super::layout::Layout;

/// What of the system a build reads: programs and libraries, and of `/etc` only what the
/// loader and the linker's alternatives need, not the machine's accounts or secrets.
pub(super) const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib64",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
];
/// What of CARGO_HOME a build reads: not its credentials.
pub(super) const CARGO_HOME_READ: &[&str] = &["bin", "registry", "git", "config.toml", "config"];

/// One home of the toolchain: where it is, and where the build sees it.
pub(super) struct Home {
    pub(super) real: PathBuf,
    pub(super) seen: PathBuf,
    pub(super) variable: &'static str,
}

impl Home {
    /// What a build reads of this home, under `base` (where it is, or where the build sees it).
    pub(super) fn readable(&self, base: &Path) -> Vec<PathBuf> {
        match self.variable {
            "CARGO_HOME" => CARGO_HOME_READ.iter().map(|part| base.join(part)).collect(),
            _ => vec![base.to_path_buf()],
        }
    }
}

/// Where the toolchain is, and where the build sees it.
pub(super) struct Toolchain {
    pub(super) homes: Vec<Home>,
    /// The cargo to run, where the build sees it.
    pub(super) cargo: PathBuf,
    /// The same cargo where it is on this machine.
    pub(super) real_cargo: PathBuf,
}

/// Where cargo's and rustup's homes are, each with its variable and its mount point.
pub(super) fn homes() -> Vec<(&'static str, PathBuf, &'static str)> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    [
        ("CARGO_HOME", home.join(".cargo"), "cargo"),
        ("RUSTUP_HOME", home.join(".rustup"), "rustup"),
    ]
    .into_iter()
    .map(|(variable, default, mount_point)| {
        let real = std::env::var_os(variable).map_or(default, PathBuf::from);
        (variable, real, mount_point)
    })
    .filter(|(_, real, _)| real.is_dir())
    .map(|(variable, real, mount_point)| {
        let real = std::fs::canonicalize(&real).unwrap_or(real);
        (variable, real, mount_point)
    })
    .collect()
}

/// Where the toolchain is on this machine.
pub fn toolchain_homes() -> Vec<PathBuf> {
    homes().into_iter().map(|(_, real, _)| real).collect()
}

impl Toolchain {
    pub(super) fn find(layout: &Layout, mounted: bool) -> Toolchain {
        let homes: Vec<Home> = homes()
            .into_iter()
            .map(|(variable, real, mount_point)| {
                let seen = if mounted {
                    layout.toolchain.join(mount_point)
                } else {
                    real.clone()
                };
                Home {
                    real,
                    seen,
                    variable,
                }
            })
            .collect();
        let cargo = std::env::var_os("CARGO")
            .map(PathBuf::from)
            .or_else(|| find_in_path("cargo"))
            .unwrap_or_else(|| "cargo".into());
        // Its folder, not the file: rustup's proxies are links that tell by their name what to run.
        let cargo = match (cargo.parent().map(std::fs::canonicalize), cargo.file_name()) {
            (Some(Ok(dir)), Some(name)) => dir.join(name),
            _ => cargo,
        };
        let seen = homes
            .iter()
            .find_map(|home| {
                cargo
                    .strip_prefix(&home.real)
                    .ok()
                    .map(|rest| home.seen.join(rest))
            })
            .unwrap_or_else(|| cargo.clone());
        Toolchain {
            homes,
            cargo: seen,
            real_cargo: cargo,
        }
    }

    /// What a build may read of the toolchain.
    pub(super) fn readable(&self) -> Vec<PathBuf> {
        self.homes
            .iter()
            .flat_map(|home| home.readable(&home.seen))
            .collect()
    }

    /// Refuses a cargo that a build whose reads are fenced (by landlock or by what a mount
    /// namespace holds) cannot see: one outside the system's folders and what the build
    /// reads of the toolchain's homes, or a link to such a place. Said with the fix, since
    /// running it would only say "No such file or directory" of a file that is there.
    pub(super) fn in_view(&self) -> Result<(), BuildError> {
        let reaches = |path: &Path| {
            SYSTEM_READ
                .iter()
                .map(PathBuf::from)
                .chain(self.homes.iter().flat_map(|home| home.readable(&home.real)))
                .any(|readable| path.starts_with(readable))
        };
        let target = std::fs::canonicalize(&self.real_cargo).unwrap_or(self.real_cargo.clone());
        if reaches(&self.real_cargo) && reaches(&target) {
            return Ok(());
        }
        // rustup's proxies are links beside rustup: only a link elsewhere is worth saying.
        let cargo = match target.parent() == self.real_cargo.parent() {
            true => self.real_cargo.display().to_string(),
            false => format!(
                "{} (a link to {})",
                self.real_cargo.display(),
                target.display()
            ),
        };
        let homes: Vec<String> = self
            .homes
            .iter()
            .map(|home| format!("{}={}", home.variable, home.real.display()))
            .collect();
        let homes = match homes.is_empty() {
            true => "no toolchain home (neither CARGO_HOME nor RUSTUP_HOME, nor ~/.cargo or ~/.rustup, is a folder)".to_string(),
            false => homes.join(" and "),
        };
        // rustup and the standalone installers put cargo in `<home>/bin`.
        let its_home = target
            .parent()
            .filter(|bin| bin.ends_with("bin"))
            .and_then(Path::parent)
            // Not a home builds see already, nor a toolchain inside one (rustup's).
            .filter(|home| !self.homes.iter().any(|seen| home.starts_with(&seen.real)))
            .map(|home| format!(" (here CARGO_HOME={})", home.display()))
            .unwrap_or_default();
        Err(BuildError::ToolchainOutOfView(format!(
            "the Rust toolchain's cargo, {cargo}, is outside what builds can see: a build sees the system's folders ({} …) and the toolchain's homes, here {homes}. Run the grader with CARGO_HOME and RUSTUP_HOME set to the homes of the toolchain that cargo belongs to{its_home}, or put a cargo of the homes above first on PATH (or name it with CARGO=PATH)",
            SYSTEM_READ[..3].join(", ")
        )))
    }
}

pub(super) fn find_in_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toolchain with a cargo home at `/cardgrade-test/cargo-home` and `cargo` where it is.
    fn with_cargo(cargo: &str) -> Toolchain {
        let home = PathBuf::from("/cardgrade-test/cargo-home");
        Toolchain {
            homes: vec![Home {
                real: home.clone(),
                seen: home,
                variable: "CARGO_HOME",
            }],
            cargo: cargo.into(),
            real_cargo: cargo.into(),
        }
    }

    #[test]
    fn a_cargo_in_a_home_or_the_systems_folders_is_in_view() {
        for cargo in ["/cardgrade-test/cargo-home/bin/cargo", "/usr/bin/cargo"] {
            assert!(with_cargo(cargo).in_view().is_ok(), "{cargo}");
        }
    }

    #[test]
    fn a_cargo_of_another_home_is_named_with_that_home() {
        let refused = with_cargo("/cardgrade-test/elsewhere/bin/cargo")
            .in_view()
            .unwrap_err()
            .to_string();
        assert!(
            refused.starts_with("the Rust toolchain's cargo, /cardgrade-test/elsewhere/bin/cargo, is outside what builds can see: a build sees the system's folders (/usr, /bin, /sbin …) and the toolchain's homes, here CARGO_HOME=/cardgrade-test/cargo-home. Run the grader with CARGO_HOME and RUSTUP_HOME set to the homes of the toolchain that cargo belongs to (here CARGO_HOME=/cardgrade-test/elsewhere), or put"),
            "{refused}"
        );
    }
}
