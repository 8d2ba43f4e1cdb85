"""School admins upload files to an agent's knowledge base in the admin, for their school only."""

from django.contrib.admin.utils import quote
from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge.models import Chunk, Document
from knowledge.services import document_create
from search.models import SearchDoc
from tests.knowledge.files import make_docx


def test_a_school_admin_uploads_a_file_in_the_admin(client, school_admin, agent):
    client.force_login(school_admin)
    response = client.post("/admin/knowledge/document/add/", {
        "agent": agent.pk, "title": "", "text": "",
        "upload": SimpleUploadedFile("二叉树教案.docx", make_docx(["二叉树的前序遍历教案"])),
    })
    assert response.status_code == 302, response.content.decode()[:2000]
    document = Document.objects.get()
    assert (document.title, document.source, document.created_by) == ("二叉树教案", "file:二叉树教案.docx", school_admin)
    assert document.chunk_count == Chunk.objects.filter(document=document).count() == 1
    assert SearchDoc.objects.count() == 1


def test_an_unusable_file_is_a_form_error_in_the_admin(client, school_admin, agent):
    client.force_login(school_admin)
    response = client.post("/admin/knowledge/document/add/", {
        "agent": agent.pk, "title": "", "text": "", "upload": SimpleUploadedFile("slides.pptx", b"PK"),
    })
    assert response.status_code == 200
    assert "不支持的文件类型" in response.content.decode()
    assert not Document.objects.exists()


def test_the_admin_offers_and_shows_only_the_admins_school(client, school_admin, agent, other_agent):
    foreign = document_create(tenant=other_agent.tenant, agent=other_agent, title="二中资料", text="x")
    client.force_login(school_admin)
    form = client.get("/admin/knowledge/document/add/").content.decode()
    assert agent.pk in form and other_agent.pk not in form
    assert "二中资料" not in client.get("/admin/knowledge/document/").content.decode()
    assert client.get(f"/admin/knowledge/document/{quote(foreign.pk)}/change/").status_code == 302  # "doesn't exist"
    response = client.post("/admin/knowledge/document/add/", {"agent": other_agent.pk, "title": "t", "text": "x"})
    assert response.status_code == 200 and Document.objects.count() == 1


def test_deleting_in_the_admin_removes_chunks_and_index_entries(client, school_admin, agent):
    document = document_create(tenant=agent.tenant, agent=agent, title="大纲", text="二叉树遍历")
    client.force_login(school_admin)
    response = client.post(f"/admin/knowledge/document/{quote(document.pk)}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Document.objects.exists() and not Chunk.objects.exists() and not SearchDoc.objects.exists()
