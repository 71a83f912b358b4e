"""What the GIO comparison scripts share: an XDG tree of desktop entries and
mimeapps.list files that GLib and uti both read, and the uti binary."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIME_DIR = "/usr/share/mime"


def build_tree(root, data_files, config_files):
    """Writes `data_files` (paths under the data folder) and `config_files`
    (under the config home), links the system's MIME data in, makes GLib's
    mimeinfo.cache with update-desktop-database, and returns the environment
    that points GLib and uti at the tree alone."""
    data, config = os.path.join(root, "share"), os.path.join(root, "config")
    for base, files in ((data, data_files), (config, config_files)):
        for rel, body in files.items():
            path = os.path.join(base, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(body)
    os.symlink(MIME_DIR, os.path.join(data, "mime"))
    subprocess.run(["update-desktop-database", os.path.join(data, "applications")], check=True,
                   stderr=subprocess.DEVNULL)
    env = dict(os.environ, XDG_DATA_DIRS=data, XDG_DATA_HOME=os.path.join(root, "none"),
               XDG_CONFIG_HOME=config, XDG_CONFIG_DIRS=os.path.join(root, "none"), XDG_CURRENT_DESKTOP="GNOME")
    env.pop("UTI_APPS", None)
    return env


def uti_binary(path):
    """`path`, or the release build of the package (built first)."""
    if path is not None:
        return path
    subprocess.run(["swift", "build", "-c", "release", "--package-path", ROOT], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, ".build", "release", "uti")
