//! The model's invariants (`assert!`s in the algorithms) hold on generated
//! scenarios: a batch of seeded scenarios from `nodesem_lang::gen` runs to
//! the end without a panic, twice with the same log (the model is
//! deterministic).

use nodesem_lang::gen::generate_from_seed;
use nodesem_lang::{print, RunConfig};
use nodesem_model::Model;
use nodesem_runtime::run_scenario;

const SEEDS: u64 = 200;

#[test]
fn generated_scenarios_run_without_breaking_an_invariant() {
    for seed in 0..SEEDS {
        let scenario = generate_from_seed(seed, 4096);
        let run =
            || std::panic::catch_unwind(|| run_scenario::<Model>(&scenario, &RunConfig::default()));
        let first = run().unwrap_or_else(|_| panic!("seed {seed}:\n{}", print(&scenario)));
        let second = run().expect("the same scenario ran once already");
        assert_eq!(first, second, "seed {seed} is not deterministic");
    }
}
