"""A Python client of the bloomkit functions, as a fleet's Python process would be (redis-py): sends VERB for every
key read from stdin (a JSON array of base64 strings), 500 keys per FCALL, and prints the replies as one JSON array.
Usage: python3 fleet.py HOST:PORT[,HOST:PORT...] single|cluster VERB NAME < keys.json"""
import base64
import json
import sys

import redis
from redis.cluster import ClusterNode, RedisCluster

nodes, mode, verb, name = sys.argv[1:5]
keys = [base64.b64decode(key) for key in json.load(sys.stdin)]
if mode == 'cluster':
    client = RedisCluster(startup_nodes=[ClusterNode(n.split(':')[0], int(n.split(':')[1])) for n in nodes.split(',')])
else:
    host, port = nodes.split(':')
    client = redis.Redis(host=host, port=int(port))
out = []
for at in range(0, len(keys), 500):
    out += client.execute_command('FCALL', verb, 1, name, *keys[at:at + 500])
print(json.dumps(out))
