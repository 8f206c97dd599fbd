#!/bin/sh
# make-pki.sh [DIR]: a CA and the certificates that the example agents
# (dc2.json, dc3.json) and the example coordinator
# (../lightraild/agents.json) name, into DIR (default: pki/ next to this
# script), for trying the example on one machine.  Each certificate
# carries its holder's name as CN and DNS subject alternative name:
# lightraild (the coordinator: the agents' peer-name), dc2, and
# agent-dc3 (the certificate-name metro-agents.json gives dc3).  In a
# real deployment each organisation keeps its own key, and only the
# certificates cross.  Certificates already there are kept.
set -eu
dir=${1:-$(dirname "$0")/pki}
mkdir -p "$dir"
cd "$dir"
if [ ! -s ca.pem ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout ca.key -out ca.pem -days 365 -subj /CN=lightrail-example-ca \
        -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
fi
for n in lightraild dc2 agent-dc3; do
    [ -s "$n.pem" ] && continue
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$n.key" -out "$n.csr" -subj "/CN=$n" 2>/dev/null
    printf 'subjectAltName=DNS:%s\nbasicConstraints=CA:FALSE\n' "$n" > "$n.ext"
    openssl x509 -req -in "$n.csr" -CA ca.pem -CAkey ca.key -CAcreateserial \
        -out "$n.pem" -days 365 -extfile "$n.ext" 2>/dev/null
    rm -f "$n.csr" "$n.ext"
done
echo "certificates in $(pwd): ca.pem, lightraild.pem, dc2.pem, agent-dc3.pem"
