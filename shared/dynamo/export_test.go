package dynamo

// AuditTableOf is the table s writes, for the tests that read it back.
func AuditTableOf(s *AuditStore) string { return s.cfg.Table }
