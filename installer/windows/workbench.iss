; Inno Setup script for Workbench on Windows (64-bit).
;
; Build on Windows after the PyInstaller build (see installer\BUILD_WINDOWS.md):
;   "C:\Program Files (x86)\Inno Setup 6\ISCC.exe" /DAppVersion=0.1.0 installer\windows\workbench.iss
; Output: dist\Workbench-<version>-setup.exe
;
; The same content as the Linux archive: the application folder (dist\Workbench: Python,
; PaddlePaddle, PaddleFormers, Qt, templates, resources, translations), a Start menu
; entry with the icon, an optional desktop icon, and workbench-cli.exe for the terminal.
; Installs per user by default (no administrator rights; %LOCALAPPDATA%\Programs\Workbench);
; an administrator can choose "for all users" (Program Files). Projects and settings in
; the user's folders are never removed by the uninstaller.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppName "Workbench"
#define AppExe "Workbench.exe"
#define CliExe "workbench-cli.exe"

[Setup]
; every path below is relative to the repository root
SourceDir=..\..
AppId={{6E0F3C5A-2B7D-4C39-9E51-8A4D2F7B1C60}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Workbench
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
MinVersion=10.0
OutputDir=dist
OutputBaseFilename=Workbench-{#AppVersion}-setup
SetupIconFile=build\icons\workbench.ico
UninstallDisplayIcon={app}\{#AppExe}
Compression=lzma2/max
SolidCompression=yes
LZMANumBlockThreads=4
WizardStyle=modern
; the folder holds many files; keep the uninstall log reliable
UsedUserAreasWarning=no

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"
Name: "chinesesimplified"; MessagesFile: "compiler:Languages\ChineseSimplified.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "dist\Workbench\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs
Source: "build\icons\workbench.ico"; DestDir: "{app}"; Flags: ignoreversion

[InstallDelete]
; an update replaces the libraries as a whole (no stale files from the previous version)
Type: filesandordirs; Name: "{app}\_internal"

[Icons]
Name: "{group}\{#AppName}"; Filename: "{app}\{#AppExe}"; IconFilename: "{app}\workbench.ico"
Name: "{group}\{#AppName} self-test"; Filename: "{cmd}"; Parameters: "/k ""{app}\{#CliExe}"" --selftest"; IconFilename: "{app}\workbench.ico"
Name: "{group}\{cm:UninstallProgram,{#AppName}}"; Filename: "{uninstallexe}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; IconFilename: "{app}\workbench.ico"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; bytecode caches written beside the sources at run time (PaddleFormers ships as source);
; user data lives elsewhere
Type: filesandordirs; Name: "{app}\_internal"
