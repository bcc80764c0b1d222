// Package keystoneconf is the keystone.conf of the real Keystones tests
// run under uwsgi (the conformance environment's, Barbican's): everything
// in one folder, SQLite, cheap password hashing (the suites create users),
// an in-process cache. Production code never imports it.
package keystoneconf

import "fmt"

// uwsgiWorkers are the uwsgi flags of a Keystone on this configuration: one
// process of one thread. oslo.db opens every SQLite transaction with a
// deferred BEGIN, so two writers at once (two uwsgi processes, or two
// threads) deadlock on SQLite's lock upgrade, and SQLite answers one of
// them "database is locked" at once, without waiting. Keystone raises that
// at commit, past its error handlers: uwsgi then closes the connection
// with no answer, and the client reads EOF. That was the conformance
// suite's flaky EOF on DELETE /v3/projects (gophercloud's TestQuotasCRUD):
// 35 of 240 project deletes ended so with two processes on a loaded
// machine, none of 480 requests with one.
var uwsgiWorkers = []string{"--processes", "1", "--threads", "1"}

// UwsgiArgs are the arguments of uwsgi serving wsgiFile on loopback port
// with one worker (uwsgiWorkers), followed by extra.
func UwsgiArgs(port int, wsgiFile string, extra ...string) []string {
	args := []string{"--plugin", "python3", "--http-socket", fmt.Sprintf("127.0.0.1:%d", port),
		"--wsgi-file", wsgiFile, "--master", "--die-on-term", "--need-app",
		// uwsgi gives up on a socket it cannot read or write for 4 s by
		// default: a request on a loaded 2-core machine then ended unanswered.
		"--socket-timeout", "120",
		// uwsgi closes the connection after each answer without saying so;
		// clients that cannot be told to send Connection: close (the
		// suites') would reuse it and read a reset.
		"--add-header", "Connection: close"}
	return append(append(args, uwsgiWorkers...), extra...)
}

// Conf is keystone.conf for a Keystone whose files live in dir, with the
// sections of extra added.
func Conf(dir, extra string) string {
	return fmt.Sprintf(`[DEFAULT]
log_file = %[1]s/keystone.log
[database]
connection = sqlite:///%[1]s/keystone.db
[identity]
password_hash_rounds = 4
[fernet_tokens]
key_repository = %[1]s/fernet
[fernet_receipts]
key_repository = %[1]s/fernet
[credential]
key_repository = %[1]s/credential
[cache]
enabled = true
backend = dogpile.cache.memory
`, dir) + extra
}
