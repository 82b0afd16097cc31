"""The offline web's content, generated from a seed: what the sites show and what the oracle knows."""
