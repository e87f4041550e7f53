#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# vm-run.sh: boot a QEMU virtual machine whose Linux kernel sees a wsemu
# board as an FTDI FT231X USB-serial bridge, or with --pcie as a PCIe
# device, run a command in it, and exit with that command's exit status.
# docs/vm-harness.md.
#
#   tests/vm/vm-run.sh [options] [--] GUEST-COMMAND...
#
#   --gadget PATH      the FunctionFS gadget program (wse-ffs-ft231x)
#   --pcie             the board as the PCIe device side instead of USB:
#                      wsemu-fast --pcie-regs on a shared register file,
#                      QEMU's ivshmem-plain device on it (00:05.0) and the
#                      guest's RAM in a shared file the server maps; no
#                      gadget, no virtio-serial link
#   --pcie-irq         --pcie with interrupts: QEMU's ivshmem-doorbell with
#                      3 MSI-X vectors, wsemu-fast its ivshmem server
#   --server PATH      the board server (default build/fast/bin/wsemu-fast)
#   --board NAME       its board (default sim-2x2)
#   --server-opt OPT   one more option for the server (repeatable)
#   --bin PATH         a host program for the guest's /usr/local/bin, with
#                      its shared libraries (repeatable)
#   --file SRC[:DEST]  a file for the guest (default DEST /data/NAME)
#   --gadget-opt OPT   one more option for the gadget (repeatable),
#                      e.g. --gadget-opt --line-error-every --gadget-opt 5
#   --serial S         the USB serial number (default WSEMU0001)
#   --qemu-opt OPT     one more option for QEMU (repeatable), e.g.
#                      --qemu-opt -device --qemu-opt edu
#   --append ARGS      more for the guest kernel's command line, e.g.
#                      --append slub_debug=U
#   --accel kvm|tcg    (default: kvm if it starts, else tcg)
#   --timeout S        bound on the virtual machine's run (default 300)
#   --out DIR          work folder (default build/vm/run); the socket is in
#                      a folder of its own under /tmp; with --pcie,
#                      DIR/server.pid holds the server's process id
#
# The guest command runs under /bin/sh -c in the guest, with PATH holding
# /usr/local/bin and the environment WSEMU_GADGET_LOG (the gadget's log)
# and WSEMU_USB_SERIAL. Its output, the gadget's log and the marker line
# WSEMU-VM-RC=<n> go to the guest console, saved in DIR/console.log; the
# part from the command on is printed here.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
gadget=$TOP/build/vm/wse-ffs-ft231x
server=$TOP/build/fast/bin/wsemu-fast
board=sim-2x2
serial=WSEMU0001
accel=
vm_timeout=300
out=$TOP/build/vm/run
pcie= pcie_irq=
kappend=
mem_mb=512
bins=() files=() server_opts=() gadget_opts=() qemu_opts=()

die() { echo "vm-run: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--gadget) gadget=$2; shift 2 ;;
	--pcie) pcie=1; shift ;;
	--pcie-irq) pcie=1 pcie_irq=1; shift ;;
	--server) server=$2; shift 2 ;;
	--board) board=$2; shift 2 ;;
	--server-opt) server_opts+=("$2"); shift 2 ;;
	--bin) bins+=("$2"); shift 2 ;;
	--file) files+=("$2"); shift 2 ;;
	--gadget-opt) gadget_opts+=("$2"); shift 2 ;;
	--serial) serial=$2; shift 2 ;;
	--qemu-opt) qemu_opts+=("$2"); shift 2 ;;
	--append) kappend="$kappend $2"; shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--timeout) vm_timeout=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || die "no guest command"
[ -n "$pcie" ] || [ -x "$gadget" ] || die "no gadget program $gadget"
[ -x "$server" ] || die "no server $server"

# ---- The kernel: the newest with the USB gadget modules ---------------------
kver=
for k in $(ls /boot/vmlinuz-* 2>/dev/null | sed 's#^/boot/vmlinuz-##' | sort -rV); do
	if ls /lib/modules/$k/kernel/drivers/usb/gadget/udc/dummy_hcd.ko* > /dev/null 2>&1; then
		kver=$k
		break
	fi
done
[ -n "$kver" ] || die "no /boot/vmlinuz-* with /lib/modules/<version>/kernel/drivers/usb/gadget/udc/dummy_hcd.ko"
kernel=/boot/vmlinuz-$kver
moddir=/lib/modules/$kver

# ---- The initramfs ------------------------------------------------------------
root=$out/root
mkdir -p "$out"
rm -rf "$root" "$out/initramfs.gz" "$out/console.log"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,data,lib/modules,usr/local/bin}

# A program with its shared libraries and dynamic loader, at their host
# paths (the guest's loader looks for them there).
copy_with_libs() {
	local src=$1 dest=$2
	mkdir -p "$(dirname "$root$dest")"
	cp -L "$src" "$root$dest"
	local lib
	for lib in $(ldd "$src" 2>/dev/null | grep -o '/[^ ]*' || true); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$(dirname "$root$lib")"
		cp -L "$lib" "$root$lib"
	done
}
# busybox-static's /bin/busybox (any other build comes with its libraries).
bb=$(command -v busybox) || die "no busybox"
copy_with_libs "$bb" /bin/busybox
for a in $("$bb" --list); do [ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"; done
[ -n "$pcie" ] || copy_with_libs "$gadget" /usr/local/bin/wse-ffs-ft231x
for b in "${bins[@]}"; do
	[ -x "$b" ] || die "no program $b"
	copy_with_libs "$b" "/usr/local/bin/$(basename "$b")"
done
for f in "${files[@]}"; do
	src=${f%%:*} dest=${f#*:}
	[ "$dest" != "$f" ] || dest=/data/$(basename "$src")
	[ -f "$src" ] || die "no file $src"
	mkdir -p "$(dirname "$root$dest")"
	cp -L "$src" "$root$dest"
done

# The modules with their dependencies from modules.dep, each after what it
# needs, once; the ones built into this kernel are skipped.
mods=()
add_mod() {
	local name=$1 line path deps d
	line=$(grep -E "^kernel/([^:]*/)?${name}\.ko(\.[a-z]+)?:" "$moddir/modules.dep" || true)
	if [ -z "$line" ]; then
		grep -qE "/${name}\.ko" "$moddir/modules.builtin" 2>/dev/null && return 0
		die "module $name not in $moddir"
	fi
	path=${line%%:*} deps=${line#*:}
	local rev=()
	for d in $deps; do rev=("$d" "${rev[@]}"); done
	for d in "${rev[@]}" "$path"; do
		case " ${mods[*]} " in *" $d "*) ;; *) mods+=("$d") ;; esac
	done
}
[ -n "$pcie" ] || for m in virtio_pci virtio_console configfs libcomposite usb_f_fs dummy_hcd; do add_mod "$m"; done
: > "$root/etc/modules"
for m in "${mods[@]}"; do
	mkdir -p "$(dirname "$root/lib/modules/$m")"
	case $m in
	*.ko.xz) xz -dc "$moddir/$m" > "$root/lib/modules/${m%.xz}"; m=${m%.xz} ;;
	*.ko.zst) zstd -qdc "$moddir/$m" > "$root/lib/modules/${m%.zst}"; m=${m%.zst} ;;
	*.ko.gz) gzip -dc "$moddir/$m" > "$root/lib/modules/${m%.gz}"; m=${m%.gz} ;;
	*) cp "$moddir/$m" "$root/lib/modules/$m" ;;
	esac
	echo "$m" >> "$root/etc/modules"
done

{ [ ${#gadget_opts[@]} -eq 0 ] || printf '%q ' "${gadget_opts[@]}"; echo; } > "$root/etc/gadget-opts"
echo "$serial" > "$root/etc/usb-serial"
if [ -n "$pcie" ]; then echo pcie; else echo usb; fi > "$root/etc/vm-link"
{ echo '#!/bin/sh'; echo "$*"; } > "$root/etc/guest-cmd"
chmod +x "$root/etc/guest-cmd"
cp "$TOP/tests/vm/init" "$root/init"
cp "$TOP/tests/vm/usb-bind" "$root/usr/local/bin/wsemu-usb-bind"
chmod +x "$root/init" "$root/usr/local/bin/wsemu-usb-bind"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initramfs.gz"

# ---- The board server and QEMU ---------------------------------------------------
# The socket in a short folder of its own: a Unix socket's path has at
# most 107 bytes.
sock_dir=$(mktemp -d /tmp/wsemu-vm-XXXXXX)
sock=$sock_dir/link.sock
log=$out/console.log
server_pid= qemu_pid=
stop_vm() {
	if [ -n "$qemu_pid" ]; then kill "$qemu_pid" 2>/dev/null || true; fi
	if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
	wait 2>/dev/null || true
	qemu_pid= server_pid=
	return 0
}
trap 'st=$?; stop_vm; rm -rf "$sock_dir"; exit $st' EXIT

# The server on the socket: the guest reaches it by virtio-serial.
start_server_usb() {
	timeout $((vm_timeout + 30)) "$server" --board "$board" --socket "$sock" --quiet \
		"${server_opts[@]}" > "$out/server.log" 2>&1 &
	server_pid=$!
	for _ in $(seq 100); do
		[ -S "$sock" ] && break
		kill -0 $server_pid 2>/dev/null || break
		sleep 0.1
	done
	[ -S "$sock" ] || { cat "$out/server.log" >&2; die "the server did not open $sock"; }
	link_opts=(-device virtio-serial-pci -chardev "socket,id=link,path=$sock"
		-device virtserialport,chardev=link,name=wsemu.link)
}

# The server as the PCIe device: the register file (ready once its magic
# "WSEP" is in) and the guest's RAM, both files shared with QEMU.
start_server_pcie() {
	local regs=$sock_dir/pcie-regs ram=$sock_dir/guest-ram bell=$sock_dir/ivshmem.sock
	local irq_opts=()
	rm -f "$regs" "$ram"
	[ -z "$pcie_irq" ] || irq_opts=(--pcie-doorbell "$bell")
	timeout $((vm_timeout + 30)) "$server" --board "$board" --pcie-regs "$regs" \
		--pcie-ram "$ram" --pcie-ram-bytes $((mem_mb << 20)) "${irq_opts[@]}" --quiet \
		"${server_opts[@]}" > "$out/server.log" 2>&1 &
	server_pid=$!
	for _ in $(seq 100); do
		[ "$(head -c 4 "$regs" 2>/dev/null)" = WSEP ] && break
		kill -0 $server_pid 2>/dev/null || break
		sleep 0.1
	done
	[ "$(head -c 4 "$regs" 2>/dev/null)" = WSEP ] ||
		{ cat "$out/server.log" >&2; die "the server did not make $regs"; }
	pgrep -P $server_pid > "$out/server.pid" || true
	link_opts=(-object "memory-backend-file,id=guest-ram,size=${mem_mb}M,mem-path=$ram,share=on"
		-machine memory-backend=guest-ram)
	if [ -n "$pcie_irq" ]; then
		link_opts+=(-chardev "socket,id=wse-bell,path=$bell"
			-device ivshmem-doorbell,chardev=wse-bell,vectors=3,addr=05.0)
	else
		link_opts+=(-object "memory-backend-file,id=wse-regs,size=64K,mem-path=$regs,share=on"
			-device ivshmem-plain,memdev=wse-regs,addr=05.0)
	fi
}

start_vm() {
	rm -f "$sock" "$log"
	link_opts=()
	if [ -n "$pcie" ]; then start_server_pcie; else start_server_usb; fi
	local cpu=qemu64
	[ "$accel" = kvm ] && cpu=$kvm_cpu
	timeout "$vm_timeout" qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m ${mem_mb}M -smp 1 \
		-nodefaults -no-user-config -display none -no-reboot -monitor none \
		-serial "file:$log" \
		-kernel "$kernel" -initrd "$out/initramfs.gz" \
		-append "console=ttyS0 quiet panic=-1 rdinit=/init$kappend" \
		"${link_opts[@]}" "${qemu_opts[@]}" > "$out/qemu.log" 2>&1 &
	qemu_pid=$!
}

# KVM is used if a machine starts on it (one that cannot exits at once:
# status other than the time-out's 124) and its guest reaches /init within
# KVM_START_S seconds (some nested hosts offer /dev/kvm but hang a guest's
# kernel); otherwise TCG. The host's CPU model is used less
# IA32_ARCH_CAPABILITIES, which nested KVM hosts may refuse to set.
kvm_cpu=host,-arch-capabilities
KVM_START_S=${KVM_START_S:-10}
auto=
if [ -z "$accel" ]; then
	accel=tcg
	if [ -e /dev/kvm ]; then
		set +e
		timeout 3 qemu-system-x86_64 -accel kvm -cpu $kvm_cpu -display none -nodefaults \
			-no-user-config -monitor none -serial none > /dev/null 2>&1
		[ $? -eq 124 ] && accel=kvm auto=1
		set -e
	fi
fi
echo "vm-run: kernel $kver, accel $accel, board $board"
start=$(date +%s.%N)
start_vm
if [ -n "$auto" ]; then
	for _ in $(seq $((KVM_START_S * 10))); do
		grep -q '^vm-init: up' "$log" 2>/dev/null && break
		kill -0 $qemu_pid 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q '^vm-init: up' "$log" 2>/dev/null; then
		echo "vm-run: no guest under KVM after ${KVM_START_S} s: TCG"
		stop_vm
		accel=tcg
		start=$(date +%s.%N)
		start_vm
	fi
fi
set +e
wait $qemu_pid
qrc=$?
set -e
qemu_pid=
end=$(date +%s.%N)
awk -v a="$start" -v b="$end" -v m="$accel" \
	'BEGIN { printf "vm-run: the virtual machine ran %.1f s (accel %s)\n", b - a, m }'

rc=$(tr -d '\r' < "$log" | sed -n 's/^WSEMU-VM-RC=\([0-9]*\)$/\1/p' | tail -1)
if [ -z "$rc" ]; then
	echo "vm-run: no WSEMU-VM-RC marker (qemu exit $qrc); the console's last lines:" >&2
	tr -d '\r' < "$log" | tail -40 >&2
	cat "$out/qemu.log" >&2
	exit 125
fi
if grep -q '^WSEMU-VM-BEGIN' "$log"; then
	tr -d '\r' < "$log" | sed -n '/^WSEMU-VM-BEGIN$/,$p' | sed 1d
else
	tr -d '\r' < "$log" | tail -40
fi
exit "$rc"
