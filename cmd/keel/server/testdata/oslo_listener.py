"""A notification consumer as Ceilometer's agent is one: oslo.messaging's
get_notification_listener on the magnum exchange, topic notifications.
Prints READY once listening, then each notification as a JSON line.

usage: listener.py TRANSPORT_URL
"""
import json
import sys
import threading
import time

from oslo_config import cfg
import oslo_messaging

lock = threading.Lock()


class Endpoint:
    def _print(self, ctxt, publisher_id, event_type, payload, metadata, priority):
        line = json.dumps({"priority": priority, "publisher_id": publisher_id,
                           "event_type": event_type, "payload": payload,
                           "metadata": metadata, "ctxt": ctxt,
                           "received_at": time.time()})
        with lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        self._print(ctxt, publisher_id, event_type, payload, metadata, "INFO")

    def error(self, ctxt, publisher_id, event_type, payload, metadata):
        self._print(ctxt, publisher_id, event_type, payload, metadata, "ERROR")


def main():
    conf = cfg.ConfigOpts()
    conf([], project="keel-test")
    transport = oslo_messaging.get_notification_transport(conf, url=sys.argv[1])
    # Reconnect quickly after the broker restarts (the driver registered
    # its options with the transport).
    conf.set_override("rabbit_retry_interval", 1, group="oslo_messaging_rabbit")
    conf.set_override("rabbit_retry_backoff", 1, group="oslo_messaging_rabbit")
    targets = [oslo_messaging.Target(topic="notifications", exchange="magnum")]
    listener = oslo_messaging.get_notification_listener(
        transport, targets, [Endpoint()], executor="threading")
    # One worker thread: with oslo's default pool (64 threads) two
    # notifications delivered in order can be handed to the endpoint out
    # of order, and the tests check the order keel sends in.
    listener.start(override_pool_size=1)
    print("READY", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
