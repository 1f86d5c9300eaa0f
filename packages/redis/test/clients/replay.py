"""A Python client that retries, as a fleet's process told to retry would (redis-py, retry on a dropped connection):
sends VERB with ID TOKEN for the keys read from stdin (a JSON array of base64 strings) in one FCALL and prints its
reply as JSON. A connection dropped after Redis applied the call makes redis-py send it again, ID and all.
Usage: python3 replay.py HOST:PORT VERB NAME TOKEN < keys.json"""
import base64
import json
import sys

import redis
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError
from redis.retry import Retry

address, verb, name, token = sys.argv[1:5]
keys = [base64.b64decode(key) for key in json.load(sys.stdin)]
host, port = address.split(':')
client = redis.Redis(host=host, port=int(port), socket_timeout=5, socket_connect_timeout=5,
                     retry=Retry(NoBackoff(), 3), retry_on_error=[RedisConnectionError, TimeoutError])
reply = client.execute_command('FCALL', verb, 1, name, 'ID', token, *keys)
print(json.dumps(reply if isinstance(reply, list) else [reply]))
