//! Paired t and Wilcoxon on cases given as JSON, for the scipy agreement script
//! (`xtask/peer/scipy_significance_agreement.py`), and a timing mode for `cargo xtask bench
//! meta`.
//!
//! `significance_cases < cases.json`: stdin holds `[{"x": [...], "y": [...]}, ...]`; prints
//! one JSON object per case and line: `{"t": t, "t_p": p, "w": min(R+, R−), "w_p": p,
//! "w_method": "exact" | "permutation" | "normal"}` (non-finite numbers as strings `"inf"`,
//! `"-inf"`, `"nan"`), or `{"error": "…"}`.
//!
//! `significance_cases tukey FILE B SEED`: reads an item-major score matrix (first line
//! `systems items`, then one line of whitespace-separated scores per item), runs randomised
//! Tukey HSD with B iterations and prints the time of the test alone, the number of rayon
//! threads, and the smallest and largest pair p-values.
//!
//! `significance_cases kendall N SEED`: times tau-b on two seeded N-long vectors (continuous,
//! correlated) and prints the seconds and tau.

use std::io::Read as _;
use std::time::Instant;

use kgeval_meta::kendall::kendall_tau;
use kgeval_meta::randomised::tukey_hsd;
use kgeval_meta::significance::{paired_t, wilcoxon, WilcoxonMethod};
use kgeval_meta::PairedScores;
use kgeval_model::meta::agreement::TauVariant;
use kgeval_model::metric_names::Direction;
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

fn number(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        json!(v.to_string().to_lowercase())
    }
}

fn floats(value: &Value) -> Option<Vec<f64>> {
    value.as_array()?.iter().map(Value::as_f64).collect()
}

fn case(value: &Value) -> Value {
    let (Some(x), Some(y)) = (floats(&value["x"]), floats(&value["y"])) else {
        return json!({"error": "a case needs numeric arrays x and y"});
    };
    match (paired_t(&x, &y), wilcoxon(&x, &y)) {
        (Ok(t), Ok(w)) => json!({
            "t": number(t.statistic),
            "t_p": number(t.p_value),
            "w": number(w.statistic),
            "w_p": number(w.p_value),
            "w_method": match w.method {
                WilcoxonMethod::Exact => "exact",
                WilcoxonMethod::Permutation => "permutation",
                WilcoxonMethod::Normal => "normal",
            },
        }),
        (Err(e), _) | (_, Err(e)) => json!({"error": e.to_string()}),
    }
}

fn tukey(args: &[String]) -> Result<(), String> {
    let [file, b, seed] = args else { return Err("usage: significance_cases tukey FILE B SEED".into()) };
    let b: usize = b.parse().map_err(|e| format!("B: {e}"))?;
    let seed: u64 = seed.parse().map_err(|e| format!("SEED: {e}"))?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let mut lines = text.lines();
    let header: Vec<usize> = lines
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{file}:1: {e}"))?;
    let [k, n] = header[..] else { return Err(format!("{file}:1: expected `systems items`")) };
    let values: Vec<f64> = lines
        .flat_map(str::split_whitespace)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{file}: {e}"))?;
    let scores = PairedScores::new(
        "score",
        Direction::Higher,
        (0..k).map(|s| format!("s{s}")).collect(),
        (0..n).map(|i| format!("q{i}")).collect(),
        values,
    )
    .map_err(|e| e.to_string())?;
    let start = Instant::now();
    let p = tukey_hsd(&scores, b, seed).map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    let (lo, hi) = p.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    println!(
        "{{\"seconds\": {seconds:.4}, \"threads\": {}, \"systems\": {k}, \"items\": {n}, \"iterations\": {b}, \"min_p\": {lo}, \"max_p\": {hi}}}",
        rayon::current_num_threads()
    );
    Ok(())
}

fn kendall(args: &[String]) -> Result<(), String> {
    let [n, seed] = args else { return Err("usage: significance_cases kendall N SEED".into()) };
    let n: usize = n.parse().map_err(|e| format!("N: {e}"))?;
    let seed: u64 = seed.parse().map_err(|e| format!("SEED: {e}"))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let x: Vec<f64> = (0..n).map(|_| rng.gen()).collect();
    let y: Vec<f64> = x.iter().map(|v| v + rng.gen::<f64>()).collect();
    let start = Instant::now();
    let tau = kendall_tau(&x, &y, TauVariant::B).map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    println!("{{\"seconds\": {seconds:.4}, \"n\": {n}, \"tau\": {}}}", tau.tau);
    Ok(())
}

/// A timing mode: its arguments → an error message.
type Mode = fn(&[String]) -> Result<(), String>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode: Option<Mode> = match args.first().map(String::as_str) {
        Some("tukey") => Some(tukey),
        Some("kendall") => Some(kendall),
        _ => None,
    };
    if let Some(mode) = mode {
        if let Err(e) = mode(&args[1..]) {
            eprintln!("{e}");
            std::process::exit(2);
        }
        return;
    }
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("stdin: {e}");
        std::process::exit(2);
    }
    let cases: Value = match serde_json::from_str(&input) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("stdin: {e}");
            std::process::exit(2);
        }
    };
    for value in cases.as_array().into_iter().flatten() {
        println!("{}", case(value));
    }
}
