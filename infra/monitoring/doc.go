// Package monitoring provides a stack's alarms, the encrypted topic they
// notify, and the operations dashboard.
package monitoring
