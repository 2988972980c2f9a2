//! The trace of a double charge (issue #33) through the binary: a scenario whose every
//! response is lost, worked by hand; the traces written exactly for the strategies whose run
//! 0 has double charges (or keys stuck in flight); the same bytes on one thread and two; the
//! captions, as a reader sees them, kept as a snapshot; and, under load (a shared server), a
//! retry answered 409 while its first attempt waited in the queue, worked by hand.

use std::path::Path;

use crate::common::{csv_rows, files_in, run, scenario_file};

/// One copy, 20 ms each way, 50 ms of processing, every ACK lost, a 200 ms timeout, one
/// retry after a constant 30 ms backoff, three payments one after another.
const LOST_ACKS: &str = r#"model = "timeline"
payments = 3

[arrivals]
process = "sequential"

[network]
request_latency = { distribution = "fixed", ms = 20 }
response_latency = { distribution = "fixed", ms = 20 }
ack_loss = 1.0

[server]
processing = { distribution = "fixed", ms = 50 }

[client]
timeout_ms = 200
max_retries = 1
backoff = { policy = "constant", base_ms = 30 }
"#;

/// Writes `text` as a config file in a fresh folder and runs it with `args`.
fn run_text(text: &str, args: &[&str]) -> (tempfile::TempDir, tempfile::TempDir) {
    let dir = tempfile::TempDir::new().unwrap();
    let path = dir.path().join("lost-acks.toml");
    std::fs::write(&path, text).unwrap();
    let (_, out) = run(&path, args);
    (dir, out)
}

/// The trace files of a folder.
fn traces_in(folder: &Path) -> Vec<String> {
    files_in(folder)
        .into_iter()
        .filter(|name| name.starts_with("trace_"))
        .collect()
}

/// The times on a trace's axis (ms), top to bottom.
fn axis_times(svg: &str) -> Vec<f64> {
    let document = roxmltree::Document::parse(svg).expect("well-formed SVG");
    let axis_x = document
        .descendants()
        .find(|node| node.has_tag_name("text") && node.text() == Some("time"))
        .and_then(|node| node.attribute("x"))
        .expect("the time axis has its heading");
    document
        .descendants()
        .filter(|node| node.has_tag_name("text") && node.attribute("x") == Some(axis_x))
        .filter_map(|node| node.text()?.strip_suffix(" ms").map(str::to_string))
        .map(|text| text.replace(',', "").parse().unwrap())
        .collect()
}

/// The captions of the page's traces, unescaped.
fn captions(html: &str) -> Vec<String> {
    let Some(start) = html.find("<section id=\"traces\">") else {
        return Vec::new();
    };
    let section = &html[start..start + html[start..].find("</section>").unwrap()];
    section
        .split("<figcaption>")
        .skip(1)
        .map(|part| {
            part[..part.find("</figcaption>").unwrap()]
                .replace("&#39;", "'")
                .replace("&quot;", "\"")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        })
        .collect()
}

/// By hand: attempt 1 is sent at 0, reaches the server at 20, is charged at 70 (after 50 ms
/// of processing) and its answer lost; the client times out at 200, backs off 30 ms, sends
/// attempt 2 at 230, which reaches the server at 250 and is charged again at 300. The trace
/// ends at that second charge and its lost answer: its rows are exactly those times.
#[test]
fn the_trace_of_a_lost_ack_has_the_hand_computed_times() {
    let (_dir, out) = run_text(LOST_ACKS, &["--quiet"]);
    // `none` charges every payment twice; the keyed strategies replay the retry.
    assert_eq!(traces_in(out.path()), ["trace_none.svg"]);
    let svg = std::fs::read_to_string(out.path().join("trace_none.svg")).unwrap();
    assert_eq!(
        axis_times(&svg),
        [0.0, 20.0, 70.0, 200.0, 230.0, 250.0, 300.0]
    );
    for label in [
        "attempt 1",
        "attempt 2",
        "response to attempt 1 lost",
        "response to attempt 2 lost",
        "charge 1",
        "charge 2: charged twice",
        "timeout",
        "backoff 30 ms",
        "client",
        "network",
        "server worker",
        "key store",
        "provider",
    ] {
        assert!(svg.contains(&format!(">{label}</text>")), "{label}");
    }
    let html = std::fs::read_to_string(out.path().join("report.html")).unwrap();
    assert_eq!(
        captions(&html),
        [
            "Payment 0 of run 0, none: attempt 1 reached the server at 20 ms and was charged at 70 \
          ms, but its response was lost at 70 ms; the client timed out at 200 ms and sent \
          attempt 2 at 230 ms after a backoff of 30 ms; it reached the server at 250 ms, which \
          keeps no key; the server charged again at 300 ms."
        ]
    );
    // The page shows it inline once, in its own section, not again under the other charts.
    assert_eq!(html.matches("charge 2: charged twice").count(), 1);
}

/// Over shipped scenarios, a trace is written for a strategy exactly when run 0 has a double
/// charge (or a key stuck in flight) under it in some scenario.
#[test]
fn traces_exist_exactly_for_the_strategies_with_double_charges() {
    for (file, payments) in [
        ("mobile-network.toml", "3000"),
        ("redis-vs-transaction.toml", "2000"),
        ("same-key-burst.toml", "1"),
    ] {
        let (_, out) = run(&scenario_file(file), &["--payments", payments, "--quiet"]);
        let rows = csv_rows(&out.path().join("timeline.csv"));
        let mut expected = Vec::new();
        for (column, prefix) in [
            ("double_charged_payments", "trace_"),
            ("stuck_payments", "trace_stuck_key_"),
        ] {
            for strategy in ["none", "check_then_insert", "unique_key"] {
                let counted = rows.iter().any(|row| {
                    row["run"] == "0"
                        && row["strategy"] == strategy
                        && row.get(column).is_some_and(|value| value != "0")
                });
                if counted {
                    expected.push(format!("{prefix}{strategy}.svg"));
                }
            }
        }
        expected.sort();
        assert!(!expected.is_empty(), "{file} has double charges");
        assert_eq!(traces_in(out.path()), expected, "{file}");
    }
}

/// The traces and the page are the same bytes on one thread and on two.
#[test]
fn traces_are_the_same_bytes_on_one_thread_and_two() {
    let file = scenario_file("redis-vs-transaction.toml");
    let (_, one) = run(&file, &["--payments", "2000", "--threads", "1", "--quiet"]);
    let (_, two) = run(&file, &["--payments", "2000", "--threads", "2", "--quiet"]);
    let traces = traces_in(one.path());
    assert_eq!(traces.len(), 4, "{traces:?}");
    assert_eq!(traces, traces_in(two.path()));
    for name in traces.iter().map(String::as_str).chain(["report.html"]) {
        let read = |folder: &Path| std::fs::read(folder.join(name)).unwrap();
        assert_eq!(read(one.path()), read(two.path()), "{name}");
    }
}

/// What a reader reads under each trace of a shipped scenario with crashes, key stores and
/// lost ACKs: a double charge per strategy and a key left in flight.
#[test]
fn the_captions_read_as_sentences() {
    let (_, out) = run(
        &scenario_file("redis-vs-transaction.toml"),
        &["--payments", "2000", "--quiet"],
    );
    let html = std::fs::read_to_string(out.path().join("report.html")).unwrap();
    insta::assert_snapshot!(captions(&html).join("\n\n"));
}

/// A shared server with one worker and a first attempt that holds it for a minute: payments
/// arrive over 2 s (about ten), the first takes the worker, every later one waits in the
/// queue. 10 ms each way, a 200 ms timeout, one retry after a constant 50 ms backoff, and the
/// key reserved in the other store as a request reaches the server (`key_first`).
const QUEUED_409: &str = r#"model = "timeline"
seed = 7
strategies = ["none", "unique_key"]

[arrivals]
rate_per_s = 5.0
duration_s = 2.0

[network]
request_latency = { distribution = "fixed", ms = 10 }
response_latency = { distribution = "fixed", ms = 10 }

[server]
workers = 1
processing = { distribution = "fixed", ms = 60000 }
key_store = "key_first"

[client]
timeout_ms = 200
max_retries = 1
backoff = { policy = "constant", base_ms = 50 }
"#;

/// By hand, from the payment's arrival: the second payment (payment 1; the first holds the
/// worker for 60 s and never waits) sends attempt 1 at 0; it reaches the server at 10, reserves
/// its key and waits in the queue with nobody ahead. The client times out at 200, backs off
/// 50 ms and sends attempt 2 at 250, which reaches the server at 260 and finds the key its
/// waiting first attempt holds: 409 at once, heard at 270, when the client, with no retry
/// left, gives up. Later a worker takes attempt 1 (at some X), processes it until X + 60,000
/// and charges; its 200 comes at X + 60,010, too late. `none` keeps no key: no 409, no trace.
#[test]
fn a_retry_answered_409_under_load_has_the_hand_computed_times() {
    let (_dir, out) = run_text(QUEUED_409, &["--quiet"]);
    let rows = csv_rows(&out.path().join("load.csv"));
    let payments: u64 = rows[0]["payments"].parse().unwrap();
    assert!(
        payments >= 2,
        "{payments} payments: the case needs a second one"
    );
    assert_eq!(traces_in(out.path()), ["trace_409_unique_key.svg"]);
    let svg = std::fs::read_to_string(out.path().join("trace_409_unique_key.svg")).unwrap();
    let times = axis_times(&svg);
    assert_eq!(
        times[..6],
        [0.0, 10.0, 200.0, 250.0, 260.0, 270.0],
        "{times:?}"
    );
    let later = &times[6..];
    assert_eq!(later.len(), 3, "{times:?}");
    assert!(later[0] > 270.0);
    assert!((later[1] - later[0] - 60_000.0).abs() < 0.01, "{times:?}");
    assert!((later[2] - later[1] - 10.0).abs() < 0.01, "{times:?}");
    // In order down the page: the first send, the queue, the timeout, the retry, the 409.
    let order = [
        ">attempt 1</text>",
        ">attempt 1: queued, 0 ahead</text>",
        ">timeout</text>",
        ">backoff 50 ms</text>",
        ">attempt 2</text>",
        ">look-up: key in flight</text>",
        ">409: key in flight</text>",
        ">timeout: gave up</text>",
    ];
    let y_of = |label: &str| {
        let at = svg
            .find(label)
            .unwrap_or_else(|| panic!("{label} in the trace"));
        let line = &svg[svg[..at].rfind('\n').unwrap()..at];
        let y = &line[line.find("y=\"").unwrap() + 3..];
        y[..y.find('"').unwrap()].parse::<f64>().unwrap()
    };
    let ys: Vec<f64> = order[..7].iter().map(|label| y_of(label)).collect();
    assert!(ys.windows(2).all(|w| w[0] <= w[1]), "{ys:?}");
    // The client gave up on the 409 at 270 (no timeout follows it), so no "gave up" timeout.
    assert!(!svg.contains(order[7]));
    for label in [
        "processing attempt 1",
        "charge 1",
        "200 (too late: ignored)",
        "key in flight (attempt 1)",
    ] {
        assert!(svg.contains(&format!(">{label}</text>")), "{label}");
    }
    let html = std::fs::read_to_string(out.path().join("report.html")).unwrap();
    let captions = captions(&html);
    assert_eq!(captions.len(), 1, "{captions:?}");
    let caption = &captions[0];
    assert!(
        caption.starts_with("Payment 1 of run 0, unique_key, arrived at "),
        "{caption}"
    );
    for clause in [
        "attempt 1 reached the server at 10 ms and waited in the queue with no request ahead \
         of it",
        "the client timed out at 200 ms and sent attempt 2 at 250 ms after a backoff of 50 ms",
        "attempt 2 reached the server at 260 ms while attempt 1 still held the key (waiting in \
         the queue), and got a 409 at once",
        "the client gave up at 270 ms.",
    ] {
        assert!(caption.contains(clause), "{clause}\n in {caption}");
    }
    assert_eq!(html.matches("409: key in flight").count(), 1);
}

/// The 409 trace and the page are the same bytes on one thread and on two.
#[test]
fn the_409_trace_is_the_same_bytes_on_one_thread_and_two() {
    let dir = tempfile::TempDir::new().unwrap();
    let path = dir.path().join("queued-409.toml");
    std::fs::write(&path, QUEUED_409).unwrap();
    let (_, one) = run(&path, &["--threads", "1", "--quiet"]);
    let (_, two) = run(&path, &["--threads", "2", "--quiet"]);
    for name in ["trace_409_unique_key.svg", "report.html"] {
        let read = |folder: &Path| std::fs::read(folder.join(name)).unwrap();
        assert_eq!(read(one.path()), read(two.path()), "{name}");
    }
}
