"""``kvdata export``: training sets from the corpus. Modules: tasks (which rows, which prompt), formats
(messages, alpaca, sharegpt, dpo, rl), filters (audit, verified, license), split (leak-free, by task group),
lengths (as each consumer tokenises), pipeline (the steps and the accounting), card (the export's README)."""
