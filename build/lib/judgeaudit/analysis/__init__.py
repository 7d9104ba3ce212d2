"""Analysis over the audit store (pandas, vectorised): buckets, rates with intervals, bias,
agreement with humans, drift between runs, and the report files."""
