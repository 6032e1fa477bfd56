//! `grader github-workflow`: the GitHub Classroom workflow that grades with cardgrade.

/// A GitHub Classroom workflow grading with cardgrade: `grader github-workflow` prints it.
pub const GITHUB_WORKFLOW: &str = r#"# .github/workflows/classroom.yml: GitHub Classroom grades each push with cardgrade.
name: Autograding Tests
on: [push, repository_dispatch]
permissions:
  checks: write
  actions: read
  contents: read
env:
  # Where your course keeps its cardgrade (with its staff specs, if any).
  CARDGRADE_REPO: https://github.com/YOUR-COURSE/cardgrade
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - uses: actions/checkout@v4
      - uses: dtolnay/rust-toolchain@stable
      - name: Install cardgrade
        run: cargo install --locked --git "$CARDGRADE_REPO" grader
      - name: cardgrade
        id: cardgrade
        # Add --assignment NAME to grade one assignment, --spec PATH for your own specs.
        run: grader check . --format github
        continue-on-error: true
      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
          CARDGRADE_RESULTS: "${{ steps.cardgrade.outputs.result }}"
        with:
          runners: cardgrade
"#;
