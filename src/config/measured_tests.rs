//! Data files read as their formats say, and every bad one refused naming the file, the line
//! and (in a CSV file) the column.

use super::*;

/// `text` written as `name` in a fresh folder, and the folder.
fn folder_with(name: &str, text: &str) -> tempfile::TempDir {
    let folder = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(folder.path().join(name), text).expect("written");
    folder
}

fn samples_request(column: Option<&str>, unit: &'static str) -> Request {
    Request::Samples {
        column: column.map(str::to_string),
        unit,
    }
}

/// The error of reading `text` as `name` with `request`, the folder's path replaced by `DIR`.
fn error(name: &str, text: &str, request: &Request) -> String {
    let folder = folder_with(name, text);
    let error = read(folder.path(), name, request).expect_err("refused");
    error.replace(&folder.path().display().to_string(), "DIR")
}

#[test]
fn samples_one_a_line_in_any_unit() {
    let folder = folder_with("s.txt", "# measured\n0.25\n\n0.1\n0.5\n");
    let measured = read(folder.path(), "s.txt", &samples_request(None, "s")).unwrap();
    assert_eq!(measured.quantile(0.0), 100.0);
    assert_eq!(measured.quantile(0.5), 250.0);
    assert_eq!(measured.quantile(0.9), 500.0);
}

#[test]
fn a_named_column_of_a_csv_file() {
    let text = "id,latency_ms,status\n1,12.5,200\n2, 30 ,200\n3,7,500\n";
    let folder = folder_with("s.csv", text);
    let request = samples_request(Some("latency_ms"), "ms");
    let measured = read(folder.path(), "s.csv", &request).unwrap();
    assert_eq!(measured.quantile(0.0), 7.0);
    assert_eq!(measured.quantile(0.5), 12.5);
    assert_eq!(measured.quantile(0.99), 30.0);
}

#[test]
fn a_file_is_read_once() {
    let folder = folder_with("once.txt", "5\n6\n");
    let request = samples_request(None, "ms");
    let first = read(folder.path(), "once.txt", &request).unwrap();
    std::fs::remove_file(folder.path().join("once.txt")).unwrap();
    let second = read(folder.path(), "once.txt", &request).expect("kept from the first read");
    assert!(std::ptr::eq(first, second));
}

#[test]
fn bad_samples_name_the_file_line_and_column() {
    let request = samples_request(None, "ms");
    let column = samples_request(Some("ms"), "ms");
    for (file, text, request, expected) in [
        (
            "a.txt",
            "1\n2\nabc\n",
            &request,
            "DIR/a.txt, line 3: `abc` is not a number",
        ),
        (
            "b.txt",
            "1\n-4\n",
            &request,
            "DIR/b.txt, line 2: `-4` is not a duration from 0 to 1000000000 ms",
        ),
        (
            "c.csv",
            "id,ms\n1,2\n",
            &request,
            "DIR/c.csv, line 1: `id,ms` is not a number (a CSV file with a header needs \
             `column = \"name\"`)",
        ),
        (
            "d.txt",
            "# nothing\n",
            &request,
            "DIR/d.txt: needs at least 1 samples, found 0",
        ),
        (
            "e.csv",
            "id,ms\n1,2\n2,x\n",
            &column,
            "DIR/e.csv, line 3, column 2 (`ms`): `x` is not a number",
        ),
        (
            "f.csv",
            "id,latency\n1,2\n",
            &column,
            "DIR/f.csv, line 1: no column `ms`; its columns are id, latency",
        ),
    ] {
        assert_eq!(error(file, text, request), expected, "{file}");
    }
    assert!(
        error("g.csv", "id,ms\n1,2\n3\n", &column).starts_with("DIR/g.csv, line 3: "),
        "a short line"
    );
    let missing = read(Path::new("/nonexistent"), "h.csv", &column).unwrap_err();
    assert!(
        missing.starts_with("cannot read /nonexistent/h.csv: "),
        "{missing}"
    );
}

#[test]
fn a_file_larger_than_the_limit_is_refused() {
    let folder = tempfile::tempdir().unwrap();
    let file = std::fs::File::create(folder.path().join("big.txt")).unwrap();
    file.set_len(MAX_DATA_FILE_BYTES + 1).unwrap();
    let error = read(folder.path(), "big.txt", &samples_request(None, "ms")).unwrap_err();
    assert_eq!(
        error.replace(&folder.path().display().to_string(), "DIR"),
        "DIR/big.txt is larger than 32 MiB, the most a data file may be"
    );
}

const EXPOSITION: &str = "\
# HELP http_request_duration_seconds Request latency.
# TYPE http_request_duration_seconds histogram
http_request_duration_seconds_bucket{handler=\"/charge\",le=\"0.05\"} 24
http_request_duration_seconds_bucket{handler=\"/charge\",le=\"0.1\"} 80
http_request_duration_seconds_bucket{handler=\"/charge\",le=\"0.5\"} 96
http_request_duration_seconds_bucket{handler=\"/charge\",le=\"+Inf\"} 100
http_request_duration_seconds_sum{handler=\"/charge\"} 12.5
http_request_duration_seconds_count{handler=\"/charge\"} 100
process_open_fds 12
";

#[test]
fn prometheus_buckets_in_seconds_by_the_metric_name() {
    let folder = folder_with("m.prom", EXPOSITION);
    let request = Request::Prometheus {
        metric: None,
        unit: None,
    };
    let measured = read(folder.path(), "m.prom", &request).unwrap();
    // 24 of 100 up to 50 ms: the 12th percentile is halfway through the first bucket.
    assert!((measured.quantile(0.12) - 25.0).abs() < 1e-9);
    // 80 up to 100 ms: the 52nd percentile is halfway from 50 to 100 ms.
    assert!((measured.quantile(0.52) - 75.0).abs() < 1e-9);
    // The +Inf bucket's 4 at the last finite bound, 500 ms.
    assert_eq!(measured.quantile(0.97), 500.0);
}

#[test]
fn bad_prometheus_files_name_the_line() {
    let request = Request::Prometheus {
        metric: None,
        unit: None,
    };
    let decreasing = EXPOSITION.replace("} 80", "} 20");
    assert_eq!(
        error("a.prom", &decreasing, &request),
        "DIR/a.prom: line 4's count (cumulative, less than line 3's count = 24) (20) must not \
         decrease: the counts are cumulative"
    );
    let two_series = format!(
        "{EXPOSITION}http_request_duration_seconds_bucket{{handler=\"/refund\",le=\"0.05\"}} 3\n"
    );
    assert_eq!(
        error("b.prom", &two_series, &request),
        "DIR/b.prom, line 10: a second series of `http_request_duration_seconds` \
         ({handler=\"/refund\"} after {handler=\"/charge\"}); keep one series in the file"
    );
    let no_unit = EXPOSITION.replace("_seconds", "_time");
    assert_eq!(
        error("c.prom", &no_unit, &request),
        "DIR/c.prom: the unit of `http_request_duration_time` is not in its name: give `unit`, \
         one of \"us\", \"ms\", \"s\""
    );
    let bad_count = EXPOSITION.replace("} 96", "} many");
    assert_eq!(
        error("d.prom", &bad_count, &request),
        "DIR/d.prom, line 5: the count `many` is not a number"
    );
    let named = Request::Prometheus {
        metric: Some("rpc_seconds".into()),
        unit: None,
    };
    assert_eq!(
        error("e.prom", EXPOSITION, &named),
        "DIR/e.prom: no histogram `rpc_seconds` (no `rpc_seconds_bucket` lines); its \
         histograms are http_request_duration_seconds"
    );
}

/// HdrHistogram's percentile output as wrk2 prints it (values in ms), shortened.
const HGRM: &str = "\
       Value     Percentile TotalCount 1/(1-Percentile)

       1.000 0.000000000000          1           1.00
       1.000 0.100000000000          1           1.11
      10.000 0.500000000000          5           2.00
      20.000 0.900000000000          9          10.00
      40.000 1.000000000000         10
#[Mean    =       14.000, StdDeviation   =       11.000]
#[Max     =       40.000, Total count    =           10]
#[Buckets =           27, SubBuckets     =         2048]
";

#[test]
fn hdrhistogram_percentile_output() {
    let folder = folder_with("w.hgrm", HGRM);
    let measured = read(folder.path(), "w.hgrm", &Request::Hgrm { unit: "ms" }).unwrap();
    // 1 of 10 at exactly 1 ms, 4 spread over (1, 10], 4 over (10, 20], 1 over (20, 40].
    assert_eq!(measured.quantile(0.05), 1.0);
    assert!((measured.quantile(0.3) - 5.5).abs() < 1e-9);
    assert!((measured.quantile(0.7) - 15.0).abs() < 1e-9);
    assert!((measured.quantile(0.95) - 30.0).abs() < 1e-9);
}

#[test]
fn bad_hgrm_files_name_the_line_and_column() {
    let request = Request::Hgrm { unit: "ms" };
    assert_eq!(
        error(
            "a.hgrm",
            &HGRM.replace("      20.000", "       5.000"),
            &request
        ),
        "DIR/a.hgrm, line 6, column 1: the values must not decrease (5.000 after 10)"
    );
    assert_eq!(
        error(
            "b.hgrm",
            &HGRM.replace("      10.000", "        ten"),
            &request
        ),
        "DIR/b.hgrm, line 5, column 1: `ten` is not a number"
    );
    assert_eq!(
        error("c.hgrm", "1 2 3\n", &request),
        "DIR/c.hgrm, line 1: expected the header `Value Percentile TotalCount \
         1/(1-Percentile)` of HdrHistogram's percentile output"
    );
}
