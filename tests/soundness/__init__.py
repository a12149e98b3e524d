"""Soundness properties of the policy core against real bash and real git (issue 7)."""
