//! `ad doctor`: each backend, whether it is usable here, and exactly what is missing otherwise.

use std::path::PathBuf;

use ad_runtime::backends::{self, BackendSetup, DoctorRow};
use clap::Args;

#[derive(Args)]
#[command(
    after_help = "Exit codes: 0 every backend is usable; 1 a backend is missing something (each row says what)."
)]
pub struct DoctorArgs {
    /// Print the rows as JSON.
    #[arg(long)]
    json: bool,
    /// The browser the web backend would drive (default: $CHROME_PATH, else /usr/bin/chromium).
    #[arg(long, value_name = "PATH")]
    browser: Option<PathBuf>,
}

fn human(rows: &[DoctorRow]) -> String {
    let mut out = String::new();
    for r in rows {
        let status = if r.usable { "ok" } else { "missing" };
        let mut what = r.version.clone().unwrap_or_default();
        if let Some(exe) = &r.executable {
            what = format!("{what} ({})", exe.display());
        }
        out.push_str(&format!(
            "{:<12} {:<8} {}\n",
            r.backend.name(),
            status,
            what.trim()
        ));
        for n in &r.notes {
            out.push_str(&format!("                      {n}\n"));
        }
        for m in &r.missing {
            out.push_str(&format!("                      missing: {m}\n"));
        }
    }
    out
}

pub fn run(args: DoctorArgs) -> i32 {
    let mut setup = BackendSetup::default();
    setup.web.executable = args.browser;
    let rows = backends::doctor(&setup);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "backends": rows }))
                .unwrap_or_default()
        );
    } else {
        print!("{}", human(&rows));
    }
    if rows.iter().all(|r| r.usable) {
        0
    } else {
        1
    }
}
