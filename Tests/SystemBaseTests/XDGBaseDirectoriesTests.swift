import SystemBase
import Testing

@Suite struct XDGBaseDirectoriesTests {
    @Test func defaultsComeFromHome() {
        let xdg = XDGBaseDirectories(["HOME": "/home/u/"])
        #expect(xdg.dataHome == "/home/u/.local/share")
        #expect(xdg.configHome == "/home/u/.config")
        #expect(xdg.cacheHome == "/home/u/.cache")
        #expect(xdg.dataDirs == ["/usr/local/share", "/usr/share"])
        #expect(xdg.configDirs == ["/etc/xdg"])
        #expect(XDGBaseDirectories(["HOME": "/"]).dataHome == "/.local/share")
    }

    /// Relative paths are ignored (the spec calls them invalid), empty
    /// lists fall back to the defaults, trailing slashes go, and a folder
    /// listed twice is kept once, where it is first named.
    @Test func relativeEmptyAndRepeatedEntries() {
        let xdg = XDGBaseDirectories([
            "HOME": "relative", "XDG_DATA_HOME": "data", "XDG_CONFIG_HOME": "/c//",
            "XDG_DATA_DIRS": "/a:rel:/b/:/a/::", "XDG_CONFIG_DIRS": "", "XDG_CACHE_HOME": "",
        ])
        #expect(xdg.dataHome == nil)
        #expect(xdg.configHome == "/c")
        #expect(xdg.cacheHome == nil)
        #expect(xdg.dataDirs == ["/a", "/b"])
        #expect(xdg.configDirs == ["/etc/xdg"])
        #expect(XDGBaseDirectories(["XDG_DATA_DIRS": "/"]).dataDirs == ["/"])
    }
}
