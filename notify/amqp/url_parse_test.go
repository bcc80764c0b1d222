package amqp

import (
	"reflect"
	"strings"
	"testing"
)

// A notifications URL is amqp(s):// as it is, or oslo's transport_url with
// one AMQP URL a host; a bad one is refused with the password hidden.
func TestParseURL(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "amqp://u:p@mq:5672/%2f", want: []string{"amqp://u:p@mq:5672/%2f"}},
		{in: "rabbit://u:p@mq1:5672,u:p@mq2:5672/openstack", want: []string{"amqp://u:p@mq1:5672/openstack", "amqp://u:p@mq2:5672/openstack"}},
		{in: "rabbit://u:p@mq:5671/?ssl=1", want: []string{"amqps://u:p@mq:5671/"}},
		{in: "kafka://u:secret@mq:9092/", err: `"kafka://u:xxx@mq:9092/": scheme "kafka"`},
		{in: "rabbit://u:secret@mq:5672,/x", err: `host "" is not`},
		{in: "mq:5672", err: "want amqp://"},
	} {
		got, err := ParseURL(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "secret") {
				t.Errorf("%s: err %v, want one with %q and no password", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q %v, want %q", c.in, got, err, c.want)
		}
	}
}
