"""The memory verbs: remember/get/update/forget (memories), recall and its
budget, listing, graph, validity, dedup and consolidation. Imports files, core, rules."""
