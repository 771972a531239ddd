"""Delegation tokens (KIP-48): the tokens themselves (`model`) and the manager that creates,
renews, expires and describes them and checks a token's SCRAM authentication (`manager`)."""
