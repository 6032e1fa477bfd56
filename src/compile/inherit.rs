//! `key.workspace = true` in a `[package]`, replaced by the workspace's value, so a crate
//! builds on its own. Shared with the grader's build script, which embeds grader-api.

/// Replaces each inherited key of `manifest`'s `[package]` found in `workspace_package`.
pub fn inherit_package(manifest: &mut toml::Table, workspace_package: &toml::Table) {
    let Some(package) = manifest.get_mut("package").and_then(|p| p.as_table_mut()) else {
        return;
    };
    for (key, value) in package.iter_mut() {
        let inherited = value
            .as_table()
            .and_then(|t| t.get("workspace"))
            .and_then(|w| w.as_bool())
            == Some(true);
        if inherited && let Some(from_workspace) = workspace_package.get(key) {
            *value = from_workspace.clone();
        }
    }
}
