package inbox

import "syscall"

// networkMagic are the statfs types of filesystems whose changes inotify
// does not hear of when another machine makes them: network shares and
// FUSE mounts (sshfs, rclone, gvfs), and 9p (WSL's Windows drives).
var networkMagic = map[uint32]string{
	0x6969:     "nfs",
	0x517B:     "smb",
	0xFF534D42: "cifs",
	0xFE534D42: "smb2",
	0x65735546: "fuse",
	0x73757245: "coda",
	0x5346414F: "afs",
	0x6B414653: "afs",
	0x01021997: "9p",
	0x00C36400: "ceph",
}

// networkFS reports whether dir is on such a filesystem: the inbox polls
// there (Settings.Poll auto).
func networkFS(dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	_, ok := networkMagic[uint32(st.Type)]
	return ok
}
