//! What graders killed outright (a signal, or `process::exit` past a grading's budget)
//! leave behind: temporary folders and cgroups named `cardgrade-PID-…`. Both the temporary
//! folders and the sandbox's cgroups sweep them the same way, so the sweep is a floor
//! below both.

use std::io;

/// Removes what graders killed outright left in `folder`: entries `cardgrade-PID-…` whose
/// grader no longer runs.
pub fn sweep(folder: &std::path::Path, remove: impl Fn(&std::path::Path) -> io::Result<()>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|name| name.strip_prefix("cardgrade-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid
            && pid != std::process::id()
            && !std::path::Path::new("/proc").join(pid.to_string()).exists()
        {
            let _ = remove(&entry.path());
        }
    }
}
