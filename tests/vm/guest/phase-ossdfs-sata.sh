#!/bin/sh
# phase-ossdfs-sata.sh - the ossdfs phase over sg: on the AHCI disk
# (libata, 512-byte sectors), in partition 2 of the same drive.
OSSDFS_DEVICE=sg:$SATA OSSDFS_PARTITION=2 exec sh /vm/phase-ossdfs.sh
