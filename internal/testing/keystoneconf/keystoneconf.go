// Package keystoneconf is the keystone.conf of the real Keystones tests
// run under uwsgi (the conformance environment's, Barbican's): everything
// in one folder, SQLite, cheap password hashing (the suites create users),
// an in-process cache. Production code never imports it.
package keystoneconf

import "fmt"

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
