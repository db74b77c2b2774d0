"""Tests of qifldp.tradeoff: f-DP trade-off curves, the two-secret criterion, lattice, lifting."""
