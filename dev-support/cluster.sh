#!/usr/bin/env bash
# A real HDFS on this machine: a NameNode and N DataNodes as separate JVMs, installed from the operator's tarball
# (dev-support/dist.sh) the way INSTALL.md says, plus Hadoop's own jars from Maven. Each process runs in its own
# network namespace with its own address; racks are Linux bridges joined to a core bridge through a rack uplink,
# shaped with HTB, so HDFS's own traffic and ours cross the same kernel bottlenecks.
#
#   cluster.sh up [options]        build the network, install, start; prints the client's environment
#   cluster.sh down [--dir DIR]    stop every process and remove every namespace it made (by its own records)
#   cluster.sh status [--dir DIR]  processes, links, uplink byte counters
#   cluster.sh client [--dir DIR] CMD...   run CMD in the client's namespace with HADOOP_CONF_DIR and a PATH holding
#                                  hadoop, hdfs and the installed bin/wide-ec
#   cluster.sh kill NODE | start NODE      kill -9 / start one daemon (nn, dn1 .. dnN); a node starts with
#                                  $dir/conf-NODE instead of $dir/conf when that directory exists
#   cluster.sh rack R down|up      cut off / heal rack R (its uplink)
#   cluster.sh counters            bytes each rack uplink carried, both directions (kernel counters)
#   cluster.sh node-bytes NODE     bytes NODE's link carried: sent by it, received by it (kernel counters)
#   Decommission the operator's way: the NameNode reads dfs.hosts.exclude = $dir/conf/dfs.exclude (empty at start);
#   write a DataNode's address into it and run `hdfs dfsadmin -refreshNodes`.
# Options of up (defaults in brackets):
#   --dir DIR [/tmp/wide-ec-cluster]  everything the cluster writes; --prefix P [wec] names its namespaces
#   --tarball FILE [target/hadoop-wide-ec-*-bin.tar.gz]   --hadoop-version V [the parent pom's]
#   --nodes N [24] --racks R [6]     DataNodes, spread over racks in contiguous runs
#   --node-rate RATE [200mbit]       every node link (tc units)
#   --mtu BYTES [9000]               every link's MTU: jumbo frames, as storage networks run (1500 for the Internet's)
#   --oversubscription X [10]        uplink = nodes per rack x node rate / X, unless --uplink-rate RATE
#   --shaping uplinks|egress-cap [uplinks]   egress-cap: uplinks unshaped, each node's cross-rack egress capped at
#                                    --cross-rack-rate [node rate / X] (the ECWide / RackCU / UniLRC testbeds' way)
#   --policies A,B [every policy of conf/wide-ec-policies.xml, RS-6-3-1024k, RS-10-4-1024k] to enable ("" for none)
#   --block-size SIZE [8m]  --dn-heap [256m]  --nn-heap [1g]  --subnet A.B [10.77]
#   --jit c1|tiered [c1]             the daemons' JIT: c1 (client compiler only) or tiered (HotSpot's default, as
#                                    production daemons run); see dev-support/cluster/README.md for why c1 here
# Needs root (namespaces, veth, bridges, tc), ethtool, curl, java 17 and mvn.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

die() { echo "cluster: $*" >&2; exit 1; }
log() { echo "cluster: $*" >&2; }

cmd="${1:-}"
[ -n "$cmd" ] || die "usage: cluster.sh up|down|status|client|kill|start|rack|counters [options] (see the header of $0)"
shift

dir=/tmp/wide-ec-cluster prefix=wec tarball="" hadoop_version="" nodes=24 racks=6 node_rate=200mbit oversub=10
policies=default uplink_rate="" shaping=uplinks cross_rate="" block_size=8m dn_heap=256m nn_heap=1g subnet=10.77
mtu=9000 jit=c1
rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --prefix) prefix="$2"; shift 2 ;;
    --tarball) tarball="$2"; shift 2 ;;
    --hadoop-version) hadoop_version="$2"; shift 2 ;;
    --nodes) nodes="$2"; shift 2 ;;
    --racks) racks="$2"; shift 2 ;;
    --node-rate) node_rate="$2"; shift 2 ;;
    --mtu) mtu="$2"; shift 2 ;;
    --jit) jit="$2"; shift 2 ;;
    --oversubscription) oversub="$2"; shift 2 ;;
    --uplink-rate) uplink_rate="$2"; shift 2 ;;
    --shaping) shaping="$2"; shift 2 ;;
    --cross-rack-rate) cross_rate="$2"; shift 2 ;;
    --block-size) block_size="$2"; shift 2 ;;
    --policies) policies="$2"; shift 2 ;;
    --dn-heap) dn_heap="$2"; shift 2 ;;
    --nn-heap) nn_heap="$2"; shift 2 ;;
    --subnet) subnet="$2"; shift 2 ;;
    --) shift; rest+=("$@"); break ;;
    *) rest+=("$1"); shift ;;
  esac
done
[ "$(id -u)" = 0 ] || die "must run as root: it creates network namespaces, veth pairs, bridges and tc qdiscs (try: sudo $0 $cmd ...)"
dir="$(mkdir -p "$dir" && cd "$dir" && pwd)"
ledger="$dir/made"   # one line per thing this cluster made: "netns NAME", "etc NAME", "pid PID NAME"
state="$dir/state"   # settings of the running cluster, sourced by every command but up

# ---------------------------------------------------------------- teardown (down, and any failure of up)
pid_is_ours() { # a PID we recorded, still running the process we started (its command line names our directory)
  # A daemon is still passing through ip, unshare and sh to its JVM right after start, and reading its command line
  # in the middle of an exec can fail or come back empty although it lives: look again while /proc still lists it
  # (an exited process that is not reaped yet reads empty for good, and counts as gone after the last look, 5 s).
  # Between bash's fork and its exec of `ip` the child still reads as this script ("cluster.sh up --dir DIR", no
  # "DIR/"): that is a daemon starting too, not a stranger, so look again.
  local cmd _
  for _ in $(seq 1 25); do
    [ -n "$1" ] && [ -d "/proc/$1" ] || return 1
    if cmd="$(tr '\0' ' ' 2>/dev/null < "/proc/$1/cmdline")" && [ -n "$cmd" ]; then
      grep -qF -- "$dir/" <<<"$cmd" && return 0
      grep -qF -- "cluster.sh" <<<"$cmd" || return 1
    fi
    sleep 0.2
  done
  return 1
}

teardown() {
  [ -f "$ledger" ] || return 0
  local kind name pid
  # Processes first (TERM, then KILL what is left), so no namespace is held open by a daemon.
  while read -r kind pid name; do
    [ "$kind" = pid ] && pid_is_ours "$pid" && kill -TERM "$pid" 2>/dev/null || true
  done < "$ledger"
  for _ in $(seq 1 20); do
    local alive=0
    while read -r kind pid name; do
      [ "$kind" = pid ] && pid_is_ours "$pid" && alive=1
    done < "$ledger"
    [ "$alive" = 0 ] && break
    sleep 0.5
  done
  while read -r kind pid name; do
    [ "$kind" = pid ] && pid_is_ours "$pid" && { log "killing $name (pid $pid) after 10 s"; kill -KILL "$pid" 2>/dev/null || true; }
  done < "$ledger"
  # Namespaces in reverse order of creation; deleting one deletes the veth ends in it, and with them their peers.
  tac "$ledger" | while read -r kind name _; do
    case "$kind" in
      netns) ip netns del "$name" 2>/dev/null || true ;;
      etc) rm -rf "/etc/netns/$name" ;;
    esac
  done
  rm -f "$ledger" "$state"
}

if [ "$cmd" = down ]; then
  [ -f "$ledger" ] || { log "nothing to take down in $dir"; exit 0; }
  teardown
  log "down: every process, namespace and link of $dir removed"
  exit 0
fi

# ---------------------------------------------------------------- helpers shared by every command
ns() { echo "$prefix-$1"; }   # the namespace of a node: nn, cl, dn1 .. dnN; the bridges live in fab
in_ns() { local n="$1"; shift; ip netns exec "$(ns "$n")" "$@"; }
rack_of() { echo $(( ($1 - 1) * racks / nodes + 1 )); }
dn_addr() { echo "$subnet.$(rack_of "$1").$(( 10 + $1 ))"; } # rack r's nodes in subnet.r.0/24
nn_addr() { echo "$subnet.0.2"; }
cl_addr() { echo "$subnet.0.3"; }

java_flags=(--add-modules=jdk.incubator.vector --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED -XX:+UseSerialGC)

# Starts daemon $1 (nn or dnI) in its namespace, with its own hostname (a UTS namespace), from its main class.
start_daemon() {
  local node="$1" class heap
  case "$node" in
    nn) class=org.apache.hadoop.hdfs.server.namenode.NameNode heap="$nn_heap" ;;
    dn*) class=org.apache.hadoop.hdfs.server.datanode.DataNode heap="$dn_heap" ;;
    *) die "no such node: $node (nn, dn1 .. dn$nodes)" ;;
  esac
  mkdir -p "$dir/data/$node"
  # bash forks once for the background job; ip, unshare and sh each exec, so $! is the JVM's own PID.
  ip netns exec "$(ns "$node")" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$node" \
    java "-Xmx$heap" "${java_flags[@]}" $(jit_flags) "-Dhadoop.tmp.dir=$dir/data/$node" "-Dhadoop.log.dir=$dir/logs" \
    "-Dhadoop.log.file=$node.log" -Dhadoop.root.logger=INFO,RFA "-Djava.library.path=$dir/dist/lib/native" \
    -cp "$(daemon_classpath "$node")" "$class" </dev/null >"$dir/logs/$node.out" 2>&1 &
  echo "pid $! $node" >> "$ledger"
  echo "$!" > "$dir/pids/$node"
}

# The daemons' JIT flags (--jit): with c1, HotSpot's C2 compiler stays off (README: a host with fewer cores than daemons).
jit_flags() { [ "$jit" = c1 ] && echo "-XX:TieredStopAtLevel=1" || true; }

# A node's configuration: $dir/conf, or $dir/conf-NODE when a drill wrote one for it (a small data disk, another secret).
daemon_classpath() {
  local conf="$dir/conf"
  [ -n "${1:-}" ] && [ -d "$dir/conf-$1" ] && conf="$dir/conf-$1"
  echo "$conf:$dir/hadoop/lib/*:$dir/hadoop/webapps-root:$(ls "$dir"/dist/share/wide-ec/hadoop-wide-ec-*.jar)"
}

node_pid() { [ -f "$dir/pids/$1" ] && cat "$dir/pids/$1"; }

uplink_bytes() { # bytes rack $1's uplink sent up (rack to core) and down (core to rack), from the kernel's counters
  echo "$(in_ns fab cat "/sys/class/net/u$1/statistics/tx_bytes") $(in_ns fab cat "/sys/class/net/U$1/statistics/tx_bytes")"
}

if [ "$cmd" != up ]; then
  [ -f "$state" ] || die "no cluster is up in $dir (cluster.sh up --dir $dir)"
  # shellcheck source=/dev/null
  . "$state"
  case "$cmd" in
    status)
      echo "cluster in $dir: $nodes DataNodes in $racks racks, node links $node_rate, MTU $mtu, JIT $jit, shaping $shaping ($shaping_detail)"
      echo "NameNode hdfs://$(nn_addr):8020  client namespace $(ns cl) ($(cl_addr))"
      for node in nn $(seq -f 'dn%g' 1 "$nodes"); do
        pid="$(node_pid "$node" || true)"
        if [ -n "$pid" ] && pid_is_ours "$pid"; then s="running (pid $pid)"; else s="down"; fi
        addr="$(nn_addr)"; [ "$node" = nn ] || addr="$(dn_addr "${node#dn}")"
        rack=core; [ "$node" = nn ] || rack="/rack$(rack_of "${node#dn}")"
        echo "$node $addr $rack $s"
      done
      for r in $(seq 1 "$racks"); do
        read -r up down <<<"$(uplink_bytes "$r")"
        echo "rack$r uplink $(in_ns fab cat "/sys/class/net/u$r/operstate"): up $up bytes, down $down bytes"
      done ;;
    counters)
      for r in $(seq 1 "$racks"); do echo "rack$r $(uplink_bytes "$r")"; done ;;
    node-bytes)
      # The fabric's end of the node's veth receives what the node sends and sends what the node receives.
      node="${rest[0]:-}"
      [ -n "$node" ] && [ "$node" != fab ] && in_ns fab test -e "/sys/class/net/$node" || die "no node link '$node' (nn, cl, dn1 .. dn$nodes)"
      echo "$(in_ns fab cat "/sys/class/net/$node/statistics/rx_bytes") $(in_ns fab cat "/sys/class/net/$node/statistics/tx_bytes")" ;;
    client)
      [ ${#rest[@]} -gt 0 ] || die "usage: cluster.sh client [--dir DIR] CMD..."
      # Named "client" like the hosts file says, as the daemons are named: the host's own name resolves nowhere here.
      exec ip netns exec "$(ns cl)" unshare --uts sh -c 'hostname client && exec "$@"' client \
        env HADOOP_CONF_DIR="$dir/conf" PATH="$dir/bin:$dir/dist/bin:$PATH" WIDE_EC_CLUSTER_DIR="$dir" "${rest[@]}" ;;
    kill)
      node="${rest[0]:-}"; pid="$(node_pid "$node" || true)"
      [ -n "$pid" ] && pid_is_ours "$pid" || die "$node is not running"
      kill -KILL "$pid"
      while [ -d "/proc/$pid" ]; do sleep 0.1; done
      log "killed $node (pid $pid) with SIGKILL" ;;
    start)
      node="${rest[0]:-}"; pid="$(node_pid "$node" || true)"
      { [ -n "$pid" ] && pid_is_ours "$pid"; } && die "$node is already running (pid $pid)"
      start_daemon "$node"
      log "started $node (pid $(node_pid "$node"))" ;;
    rack)
      r="${rest[0]:-}" how="${rest[1]:-}"
      [ "$how" = down ] || [ "$how" = up ] || die "usage: cluster.sh rack R down|up"
      in_ns fab ip link set "u$r" "$how"
      in_ns fab ip link set "U$r" "$how"
      log "rack$r uplink $how" ;;
    *) die "unknown command '$cmd' (up, down, status, client, kill, start, rack, counters, node-bytes)" ;;
  esac
  exit 0
fi

# ---------------------------------------------------------------- up
[ -f "$ledger" ] && die "a cluster is already up in $dir (cluster.sh down --dir $dir first)"
for tool in ip tc ethtool curl java mvn unshare; do
  command -v "$tool" >/dev/null || die "'$tool' is needed (apt-get install iproute2 ethtool curl maven openjdk-17-jdk)"
done
[ "$nodes" -ge 1 ] && [ "$racks" -ge 1 ] && [ "$racks" -le "$nodes" ] && [ "$nodes" -le 240 ] \
  || die "--nodes must be 1 to 240 and --racks between 1 and --nodes"
[ "$shaping" = uplinks ] || [ "$shaping" = egress-cap ] || die "--shaping is uplinks or egress-cap, not '$shaping'"
[[ "$mtu" =~ ^[0-9]+$ ]] && [ "$mtu" -ge 1280 ] && [ "$mtu" -le 65535 ] || die "--mtu must be 1280 to 65535 bytes, not '$mtu'"
[ "$jit" = c1 ] || [ "$jit" = tiered ] || die "--jit is c1 or tiered, not '$jit'"
if [ -z "$tarball" ]; then
  tarball="$(ls -t "$here"/target/hadoop-wide-ec-*-bin.tar.gz 2>/dev/null | head -n 1 || true)"
  [ -n "$tarball" ] || die "no distribution in $here/target: build it with dev-support/dist.sh (or pass --tarball FILE)"
fi
[ -f "$tarball" ] || die "no such tarball: $tarball"
for n in $(ip netns list | awk '{print $1}'); do
  case "$n" in "$prefix"-*) die "namespace $n exists but $dir records no cluster: another cluster uses prefix $prefix (--prefix)";; esac
done

: > "$ledger"
trap 'status=$?; if [ $status -ne 0 ]; then log "up failed (exit $status); removing everything it made"; teardown; fi' EXIT
mkdir -p "$dir/logs" "$dir/pids" "$dir/bin" "$dir/conf"
# A fresh cluster: nothing of an earlier one in this directory (the secret's keystore refuses to be overwritten,
# a drill's per-node configuration would outlive it).
rm -rf "$dir/data" "$dir/dist" "$dir"/conf-* "$dir/conf/wide-ec.jceks"

# Rates in bit/s: the uplink of a rack carries what its nodes could send, divided by the oversubscription.
bits() { # tc rate (200mbit, 1gbit, 80kbit) in bit/s
  local v="${1,,}"
  case "$v" in
    *gbit) echo $(( ${v%gbit} * 1000000000 )) ;; *mbit) echo $(( ${v%mbit} * 1000000 )) ;;
    *kbit) echo $(( ${v%kbit} * 1000 )) ;; *bit) echo "${v%bit}" ;; *) die "rate '$1' is not like 200mbit" ;;
  esac
}
per_rack=$(( (nodes + racks - 1) / racks ))
[ -n "$uplink_rate" ] || uplink_rate="$(( $(bits "$node_rate") * per_rack / oversub ))bit"
[ -n "$cross_rate" ] || cross_rate="$(( $(bits "$node_rate") / oversub ))bit"
if [ "$shaping" = uplinks ]; then
  shaping_detail="rack uplinks $uplink_rate each way (1:$oversub)"
else
  shaping_detail="each node's cross-rack egress capped at $cross_rate, uplinks unshaped"
fi

# -------- 1. the network: a fabric namespace holding the bridges; one namespace per node
new_ns() {
  ip netns add "$(ns "$1")"
  echo "netns $(ns "$1")" >> "$ledger"
  in_ns "$1" ip link set lo up
}
offloads_off() { # GSO/TSO/GRO off, so the shapers and counters see the packets the wire would carry
  in_ns "$1" ethtool -K "$2" gso off tso off gro off >/dev/null 2>&1 || in_ns "$1" ethtool -K "$2" gso off gro off >/dev/null
}
# HTB's quantum: ten frames of the links' MTU (with their Ethernet headers); its burst, from "mtu", holds one frame.
# Every queue holds the bytes of 1000 standard frames (1.5 MB) whatever the MTU, so larger frames do not deepen it.
quantum=$(( 10 * (mtu + 14) )) queue=$(( 1000 * 1514 / (mtu + 14) ))
htb() { # HTB on the egress of device $2 in namespace $1 at rate $3 (the kernel here has pfifo leaves only)
  in_ns "$1" tc qdisc add dev "$2" root handle 1: htb default 10
  in_ns "$1" tc class add dev "$2" parent 1: classid 1:10 htb rate "$3" ceil "$3" quantum "$quantum" mtu "$mtu"
  in_ns "$1" tc qdisc add dev "$2" parent 1:10 pfifo limit "$queue"
}
# Node $1 with address $2 on bridge $3 of the fabric: eth0 in the node, $1 in the fabric.
attach() {
  local node="$1" addr="$2" bridge="$3" rack="$4"
  new_ns "$node"
  in_ns fab ip link add "$node" mtu "$mtu" type veth peer name eth0 mtu "$mtu" netns "$(ns "$node")"
  in_ns fab ip link set "$node" master "$bridge" up
  in_ns "$node" ip addr add "$addr/16" dev eth0
  in_ns "$node" ip link set eth0 up
  offloads_off fab "$node"
  offloads_off "$node" eth0
  htb fab "$node" "$node_rate" # into the node
  if [ "$shaping" = egress-cap ] && [ -n "$rack" ]; then
    # Out of the node: its own rack's subnet at the node rate, everything else (other racks, NameNode, client) capped.
    in_ns "$node" tc qdisc add dev eth0 root handle 1: htb default 20
    in_ns "$node" tc class add dev eth0 parent 1: classid 1:10 htb rate "$node_rate" ceil "$node_rate" quantum "$quantum" mtu "$mtu"
    in_ns "$node" tc class add dev eth0 parent 1: classid 1:20 htb rate "$cross_rate" ceil "$cross_rate" quantum "$quantum" mtu "$mtu"
    in_ns "$node" tc qdisc add dev eth0 parent 1:10 pfifo limit "$queue"
    in_ns "$node" tc qdisc add dev eth0 parent 1:20 pfifo limit "$queue"
    in_ns "$node" tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst "$subnet.$rack.0/24" flowid 1:10
  else
    htb "$node" eth0 "$node_rate" # out of the node
  fi
}

log "network: $nodes DataNodes in $racks racks, node links $node_rate, MTU $mtu, $shaping_detail"
new_ns fab
in_ns fab ip link add core mtu "$mtu" type bridge
in_ns fab ip link set core up
for r in $(seq 1 "$racks"); do
  in_ns fab ip link add "r$r" mtu "$mtu" type bridge
  in_ns fab ip link set "r$r" up
  # The uplink: u$r on the rack's bridge sends up to the core, U$r on the core sends down into the rack.
  in_ns fab ip link add "u$r" mtu "$mtu" type veth peer name "U$r" mtu "$mtu"
  in_ns fab ip link set "u$r" master "r$r" up
  in_ns fab ip link set "U$r" master core up
  offloads_off fab "u$r"
  offloads_off fab "U$r"
  if [ "$shaping" = uplinks ]; then
    htb fab "u$r" "$uplink_rate"
    htb fab "U$r" "$uplink_rate"
  fi
done
attach nn "$(nn_addr)" core ""
attach cl "$(cl_addr)" core ""
for i in $(seq 1 "$nodes"); do
  attach "dn$i" "$(dn_addr "$i")" "r$(rack_of "$i")" "$(rack_of "$i")"
done

# Neighbours: every node knows every other's MAC address for good. The fabric is one Ethernet segment, so ARP would
# cross the shaped rack uplinks, where a full queue drops it and a connection fails with "No route to host"; in a
# routed data centre ARP stays within a rack. Permanent entries keep address resolution out of what is measured.
all_nodes="nn cl $(seq -f 'dn%g' 1 "$nodes" | tr '\n' ' ')"
addr_of() { case "$1" in nn) nn_addr ;; cl) cl_addr ;; *) dn_addr "${1#dn}" ;; esac; }
neigh="$dir/conf/neighbours"
: > "$neigh"
for n in $all_nodes; do
  echo "neigh replace $(addr_of "$n") lladdr $(in_ns "$n" cat /sys/class/net/eth0/address) dev eth0 nud permanent" >> "$neigh"
done
for n in $all_nodes; do
  grep -v " $(addr_of "$n") " "$neigh" | in_ns "$n" ip -batch - || die "cannot set the neighbour table of $(ns "$n")"
done

# Names: every namespace sees the same /etc/hosts (ip netns exec mounts /etc/netns/NAME/* over /etc), and no DNS
# server, so Hadoop's reverse look-ups answer at once instead of timing out on an unreachable resolver.
hosts="$dir/conf/hosts"
{ echo "127.0.0.1 localhost"; echo "$(nn_addr) nn"; echo "$(cl_addr) client"
  for i in $(seq 1 "$nodes"); do echo "$(dn_addr "$i") dn$i"; done; } > "$hosts"
for n in nn cl $(seq -f 'dn%g' 1 "$nodes"); do
  mkdir -p "/etc/netns/$(ns "$n")"
  echo "etc $(ns "$n")" >> "$ledger"
  cp "$hosts" "/etc/netns/$(ns "$n")/hosts"
  echo "options timeout:1 attempts:1" > "/etc/netns/$(ns "$n")/resolv.conf"
done

# -------- Hadoop's jars, resolved by Maven at the version the project builds against
[ -n "$hadoop_version" ] || hadoop_version="$(sed -n 's:.*<hadoop.version>\(.*\)</hadoop.version>.*:\1:p' "$here/pom.xml" | head -n 1)"
log "Hadoop $hadoop_version from Maven into $dir/hadoop"
rm -rf "$dir/hadoop"
mkdir -p "$dir/hadoop/lib" "$dir/hadoop/webapps-root"
mvn -q -B -Dstyle.color=never -f "$here/dev-support/cluster/pom.xml" "-Dhadoop.version=$hadoop_version" \
  dependency:copy-dependencies -DincludeScope=runtime "-DoutputDirectory=$dir/hadoop/lib" >"$dir/logs/maven.log" 2>&1 \
  || die "Maven could not resolve Hadoop $hadoop_version (see $dir/logs/maven.log)"
# The web UIs (webapps/hdfs, webapps/datanode) ship only in the hadoop-hdfs tests jar; the jar itself stays off the path.
(cd "$dir/hadoop/webapps-root" && unzip -q "$dir/hadoop/lib/hadoop-hdfs-$hadoop_version-tests.jar" 'webapps/*')
rm "$dir/hadoop/lib/hadoop-hdfs-$hadoop_version-tests.jar"

# Hadoop's launchers for what INSTALL.md runs (hadoop jar, hadoop credential, hdfs ec, hdfs dfsadmin, hdfs dfs), client
# commands all: HADOOP_OPTS and then HADOOP_CLIENT_OPTS, as Hadoop's own launcher gives them.
for tool in hadoop hdfs; do
  cat > "$dir/bin/$tool" <<EOF
#!/usr/bin/env bash
# $tool, made of Hadoop's jars by dev-support/cluster.sh: the subcommands INSTALL.md uses.
set -euo pipefail
cp="\${HADOOP_CONF_DIR:-$dir/conf}:$dir/hadoop/lib/*\${HADOOP_CLASSPATH:+:\$HADOOP_CLASSPATH}"
run() { exec java -Xmx512m ${java_flags[*]} \${HADOOP_OPTS:-} \${HADOOP_CLIENT_OPTS:-} \${JAVA_LIBRARY_PATH:+-Djava.library.path=\$JAVA_LIBRARY_PATH} \\
  -Dhadoop.root.logger=WARN,console -cp "\$cp" "\$@"; }
case "$tool \${1:-}" in
  "hadoop jar") shift; run org.apache.hadoop.util.RunJar "\$@" ;;
  "hadoop classpath") echo "\$cp" ;;
  "hadoop credential") shift; run org.apache.hadoop.security.alias.CredentialShell "\$@" ;;
  "hdfs ec") shift; run org.apache.hadoop.hdfs.tools.ECAdmin "\$@" ;;
  "hdfs dfsadmin") shift; run org.apache.hadoop.hdfs.tools.DFSAdmin "\$@" ;;
  "hdfs dfs") shift; run org.apache.hadoop.fs.FsShell "\$@" ;;
  "hdfs fsck") shift; run org.apache.hadoop.hdfs.tools.DFSck "\$@" ;;
  *) echo "$tool (cluster.sh's launcher): no subcommand '\${1:-}'" >&2; exit 1 ;;
esac
EOF
  chmod +x "$dir/bin/$tool"
done

# -------- INSTALL.md, "Order", step by step
# 1. Copy the jar and libwideec.so to every node: here every node runs from one unpacked copy of the tarball.
log "INSTALL 1: unpacking $tarball"
mkdir -p "$dir/dist"
tar -xzf "$tarball" -C "$dir/dist" --strip-components=1
ls "$dir"/dist/share/wide-ec/hadoop-wide-ec-*.jar >/dev/null 2>&1 || die "$tarball holds no share/wide-ec/hadoop-wide-ec-*.jar"
[ -f "$dir/dist/lib/native/libwideec.so" ] || die "$tarball holds no lib/native/libwideec.so"

# 2. Merge conf/hdfs-site-wide-ec.xml into every role's configuration, the secret in a credential provider.
log "INSTALL 2: configuration (core-site.xml, hdfs-site.xml merged with conf/hdfs-site-wide-ec.xml, topology script)"
conf="$dir/conf"
{ echo "# address rack"
  for i in $(seq 1 "$nodes"); do echo "$(dn_addr "$i") /rack$(rack_of "$i")"; echo "dn$i /rack$(rack_of "$i")"; done
} > "$conf/topology.data"
cat > "$conf/topology.sh" <<EOF
#!/bin/sh
# Rack of each address or name Hadoop passes (net.topology.script.file.name): the table in topology.data.
for host in "\$@"; do
  rack=\$(awk -v h="\$host" '\$1 == h { print \$2; exit }' "$conf/topology.data")
  echo "\${rack:-/default-rack}"
done
EOF
chmod +x "$conf/topology.sh"
: > "$conf/dfs.exclude"
property() { printf '  <property><name>%s</name><value>%s</value></property>\n' "$1" "$2"; }
{ echo '<?xml version="1.0"?>'; echo '<configuration>'
  property fs.defaultFS "hdfs://$(nn_addr):8020"
  property net.topology.script.file.name "$conf/topology.sh"
  property hadoop.security.credential.provider.path "jceks://file$conf/wide-ec.jceks"
  echo '</configuration>'; } > "$conf/core-site.xml"
{ echo '<?xml version="1.0"?>'; echo '<configuration>'
  echo '  <!-- This cluster: small blocks, quick death detection (2 x recheck + 10 x heartbeat = 20 s), no short-circuit reads. -->'
  property dfs.blocksize "$block_size"
  property dfs.replication 3
  property dfs.heartbeat.interval 1
  property dfs.namenode.heartbeat.recheck-interval 5000
  property dfs.namenode.redundancy.interval.seconds 1
  property dfs.namenode.safemode.extension 1000
  property dfs.client.read.shortcircuit false
  property dfs.block.access.token.enable true
  property dfs.namenode.datanode.registration.ip-hostname-check false
  property dfs.permissions.superusergroup root
  echo '  <!-- Decommission the operator way: DataNodes listed here leave service at hdfs dfsadmin -refreshNodes; the'
  echo '       monitor checks their progress every 5 s instead of 30 s, so a short decommission is timed to within 5 s. -->'
  property dfs.hosts.exclude "$conf/dfs.exclude"
  property dfs.namenode.decommission.interval 5s
  echo '  <!-- Merged from the distribution: conf/hdfs-site-wide-ec.xml -->'
  sed -e '1,/<configuration>/d' -e '/<\/configuration>/,$d' "$dir/dist/conf/hdfs-site-wide-ec.xml"
  echo '  <!-- This cluster'"'"'s links, in bytes/s, for the decommission plans'"'"' copy-or-rebuild pricing (after the merged'
  echo '       defaults, so these win): node links, and rack uplinks (egress-cap: a rack'"'"'s nodes'"'"' capped egress together);'
  echo '       and the node link background streams size their window to (the bandwidth-delay product of a hop). -->'
  property wide-ec.decommission.link.node.bytes-per-second "$(( $(bits "$node_rate") / 8 ))"
  property wide-ec.transport.background.window.node.bytes-per-second "$(( $(bits "$node_rate") / 8 ))"
  if [ "$shaping" = uplinks ]; then
    property wide-ec.decommission.link.rack.bytes-per-second "$(( $(bits "$uplink_rate") / 8 ))"
    property wide-ec.transport.background.window.rack.bytes-per-second "$(( $(bits "$uplink_rate") / 8 ))"
  else
    property wide-ec.decommission.link.rack.bytes-per-second "$(( $(bits "$cross_rate") * per_rack / 8 ))"
    property wide-ec.transport.background.window.rack.bytes-per-second "$(( $(bits "$cross_rate") / 8 ))"
  fi
  echo '</configuration>'; } > "$conf/hdfs-site.xml"
cat > "$conf/log4j.properties" <<'EOF'
hadoop.root.logger=INFO,console
hadoop.log.dir=.
hadoop.log.file=hadoop.log
log4j.rootLogger=${hadoop.root.logger}
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.target=System.err
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n
log4j.appender.RFA=org.apache.log4j.RollingFileAppender
log4j.appender.RFA.File=${hadoop.log.dir}/${hadoop.log.file}
log4j.appender.RFA.MaxFileSize=64MB
log4j.appender.RFA.MaxBackupIndex=2
log4j.appender.RFA.layout=org.apache.log4j.PatternLayout
log4j.appender.RFA.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n
EOF
secret="$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
HADOOP_CONF_DIR="$conf" "$dir/bin/hadoop" credential create wide-ec.transport.secret -value "$secret" \
  -provider "jceks://file$conf/wide-ec.jceks" >"$dir/logs/credential.log" 2>&1 \
  || die "hadoop credential create failed (see $dir/logs/credential.log)"

# A fresh cluster's NameNode is formatted once, before anything starts.
log "formatting the NameNode"
in_ns nn java "${java_flags[@]}" "-Dhadoop.tmp.dir=$dir/data/nn" -cp "$(daemon_classpath)" \
  org.apache.hadoop.hdfs.server.namenode.NameNode -format -nonInteractive -force >"$dir/logs/format.log" 2>&1 \
  || die "formatting the NameNode failed (see $dir/logs/format.log)"

# 3. (Re)start the DataNodes, then 4. the NameNode.
log "INSTALL 3: starting $nodes DataNodes (heap $dn_heap, JIT $jit)"
for i in $(seq 1 "$nodes"); do start_daemon "dn$i"; done
log "INSTALL 4: starting the NameNode (heap $nn_heap)"
start_daemon nn

cat > "$state" <<EOF
prefix=$prefix nodes=$nodes racks=$racks subnet=$subnet node_rate=$node_rate uplink_rate=$uplink_rate mtu=$mtu
jit=$jit shaping=$shaping cross_rate=$cross_rate oversub=$oversub block_size=$block_size dn_heap=$dn_heap nn_heap=$nn_heap
shaping_detail="$shaping_detail"
EOF

jmx() { in_ns cl curl -s --max-time 5 "http://$(nn_addr):9870/jmx?qry=$1" || true; }
live=0
for _ in $(seq 1 300); do
  for node in nn $(seq -f 'dn%g' 1 "$nodes"); do
    pid_is_ours "$(node_pid "$node")" || die "$node died while starting; its log: $dir/logs/$node.log ($dir/logs/$node.out)"
  done
  live="$(jmx Hadoop:service=NameNode,name=FSNamesystemState | sed -n 's/.*"NumLiveDataNodes" *: *\([0-9]*\).*/\1/p')"
  safemode="$(jmx Hadoop:service=NameNode,name=NameNodeInfo | sed -n 's/.*"Safemode" *: *"\([^"]*\)".*/\1/p')"
  [ "${live:-0}" = "$nodes" ] && [ -z "$safemode" ] && break
  sleep 1
done
[ "${live:-0}" = "$nodes" ] || die "only ${live:-0} of $nodes DataNodes registered in 300 s (logs in $dir/logs)"

# 5. Add and enable the shipped policies, then check the cluster.
log "INSTALL 5: hdfs ec -addPolicies, -enablePolicy, wide-ec check-cluster"
client() { ip netns exec "$(ns cl)" unshare --uts sh -c 'hostname client && exec "$@"' client env HADOOP_CONF_DIR="$conf" PATH="$dir/bin:$dir/dist/bin:$PATH" "$@"; }
client hdfs ec -addPolicies -policyFile "$dir/dist/conf/wide-ec-policies.xml" >"$dir/logs/policies.log" 2>&1 \
  || die "hdfs ec -addPolicies failed (see $dir/logs/policies.log)"
if [ "$policies" = default ]; then
  policies="$(grep -o 'Add ErasureCodingPolicy [^ ]* succeed' "$dir/logs/policies.log" | awk '{print $3}' | tr '\n' ,)"
  policies="${policies}RS-6-3-1024k,RS-10-4-1024k"
fi
for policy in ${policies//,/ }; do
  client hdfs ec -enablePolicy -policy "$policy" >>"$dir/logs/policies.log" 2>&1 \
    || die "hdfs ec -enablePolicy -policy $policy failed (see $dir/logs/policies.log)"
done
client wide-ec check-cluster > "$dir/logs/check-cluster.log" 2>&1 || log "wide-ec check-cluster did not pass for every policy (the cluster may be too small for some): $dir/logs/check-cluster.log"
client wide-ec nodes > "$dir/logs/nodes.log" 2>&1 || die "wide-ec nodes failed (see $dir/logs/nodes.log)"

trap - EXIT
log "up: NameNode hdfs://$(nn_addr):8020, $nodes DataNodes; run clients with: $0 client --dir $dir CMD..."
