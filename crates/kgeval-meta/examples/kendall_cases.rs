//! Kendall tau of many cases for the scipy agreement check (`xtask/peer/scipy_kendall_agreement.py`).
//!
//! Reads a JSON array of cases `{"x": [...], "y": [...]}` on standard input and prints a JSON
//! array with, per case, `tau_a`, `tau_b`, `tau_c`, `p_b`, `p_c` (the same p-value: it
//! depends only on P − Q) and `method` (`exact`, `asymptotic`, `undefined`); NaN prints as
//! `null`. A case kgeval refuses (a NaN value, lengths that differ) prints `{"error": "…"}`.
//!
//! ```text
//! echo '[{"x": [1, 2, 3, 4], "y": [1, 2, 4, 3]}]' | cargo run -q -p kgeval-meta --example kendall_cases
//! ```

use std::io::Read as _;

use kgeval_meta::kendall::kendall_counts;
use kgeval_model::meta::agreement::TauVariant;
use serde_json::{json, Value};

fn number(value: f64) -> Value {
    if value.is_finite() {
        json!(value)
    } else {
        Value::Null
    }
}

fn floats(case: &Value, key: &str) -> Result<Vec<f64>, String> {
    let array = case.get(key).and_then(Value::as_array).ok_or_else(|| format!("a case without `{key}`"))?;
    // `null` stands for NaN (JSON has no NaN).
    array
        .iter()
        .map(
            |v| {
                if v.is_null() {
                    Ok(f64::NAN)
                } else {
                    v.as_f64().ok_or_else(|| format!("`{key}`: {v} is not a number"))
                }
            },
        )
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input)?;
    let cases: Vec<Value> = serde_json::from_str(&input)?;
    let mut results = Vec::with_capacity(cases.len());
    for case in &cases {
        let (x, y) = (floats(case, "x")?, floats(case, "y")?);
        results.push(match kendall_counts(&x, &y) {
            Ok(counts) => {
                let (p, method) = counts.p_value();
                json!({
                    "tau_a": number(counts.tau(TauVariant::A)),
                    "tau_b": number(counts.tau(TauVariant::B)),
                    "tau_c": number(counts.tau(TauVariant::C)),
                    "p_b": number(p),
                    "p_c": number(p),
                    "method": method.name(),
                })
            }
            Err(error) => json!({ "error": error.to_string() }),
        });
    }
    println!("{}", serde_json::to_string(&results)?);
    Ok(())
}
