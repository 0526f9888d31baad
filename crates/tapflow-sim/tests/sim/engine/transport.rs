//! The transport: argv run through `SimTransport`, timeouts on slow dumps, latency costing
//! device time, hilog streaming, recorded layouts round-tripping through hdc.

use super::*;
use pretty_assertions::assert_eq;

#[test]
fn transport_runs_argv_and_times_out_on_slow_dumps() {
    let s = Arc::new(sim());
    let t = SimTransport::new(Arc::clone(&s), "/");
    let out = t
        .run(&["list".into(), "targets".into()], Duration::from_secs(5))
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{}\n", s.serials()[0])
    );
    assert_eq!(out.status, Some(0));
    assert_eq!(t.program(), "sim:hdc");

    let slow = Arc::new(sim_with(1, "slow-dump=400ms", 0));
    let t = SimTransport::new(slow, "/");
    let dump = vec![
        "shell".to_string(),
        "uitest dumpLayout -p /data/local/tmp/s.json".to_string(),
    ];
    assert!(matches!(
        t.run(&dump, Duration::from_millis(100)),
        Err(TransportError::Timeout(_))
    ));
    let ok = t.run(&dump, Duration::from_secs(5)).unwrap();
    assert_eq!(
        String::from_utf8(ok.stdout).unwrap(),
        "DumpLayout saved to:/data/local/tmp/s.json\n"
    );
    // A stream never ends by itself: the transport reports a timeout.
    assert!(matches!(
        t.run(
            &["shell".into(), "hilog".into()],
            Duration::from_millis(150)
        ),
        Err(TransportError::Timeout(_))
    ));
}

#[test]
fn realistic_latency_costs_device_time() {
    let s = Simulator::new(SimOptions::default());
    let t = std::time::Instant::now();
    run(
        &s,
        &["shell", "uitest dumpLayout -p /data/local/tmp/r.json"],
    );
    let dump_time = t.elapsed();
    assert!(dump_time >= Duration::from_millis(280), "{dump_time:?}");
    let t = std::time::Instant::now();
    run(&s, &["list", "targets"]);
    assert!(t.elapsed() < Duration::from_millis(200));
}

#[test]
fn hdc_hilog_streams_everything() {
    let s = sim();
    let mut got = Vec::new();
    let mut n = 0;
    let mut sink = |b: &[u8]| {
        got.extend_from_slice(b);
        n += 1;
        n < 2
    };
    s.handle_streaming(&["hilog".into(), "-x".into()], Path::new("/"), &mut sink);
    let text = norm_time(&String::from_utf8(got).unwrap());
    let re = regex::Regex::new(r"^MM-DD hh:mm:ss\.mmm +\d+ +\d+ [DIWEF] [ACIK][0-9a-f]{5}/[^:]+: ")
        .unwrap();
    assert!(
        text.lines().count() > 0 && text.lines().all(|l| re.is_match(l)),
        "{text}"
    );
}

#[test]
fn recorded_layout_round_trips_through_hdc() {
    let s = sim();
    let recorded = fixture("layout_hmdriver2_uitest_demo_mate60pro_pretty.json");
    s.phone(&s.serials()[0])
        .unwrap()
        .show_recorded_layout(&recorded)
        .unwrap();
    let want: Value = serde_json::from_str(&recorded).unwrap();
    assert_eq!(dump(&s), want);
}
